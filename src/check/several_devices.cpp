// Chapter 18: with several devices, each holds part of the batch. Which axes
// are batch axes is a fixpoint over the call graph: the generic axis of a
// `[b] Record` parameter or of a value from `batches`/`whole`, carried to the
// parameters it is passed to. Then every event recorded along such an axis
// is judged, and every call is checked for split and whole arguments.
#include "check/checker_impl.hpp"

namespace ss::check {
namespace {

bool touches(const Axis& a, const std::set<std::string>& batch) {
  for (const auto& f : a.factors)
    if (f.kind == Factor::Kind::generic && batch.count(f.name)) return true;
  return false;
}

}  // namespace

void Checker::several_device_rules() {
  // The batch axes, to a fixpoint.
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto& [name, fn] : fns_) {
      for (const auto& call : fn.calls) {
        FnInfo& callee = fns_.at(call.callee);
        for (const auto& [generic, axis] : call.bindings) {
          if (touches(axis, fn.batch_axes) && callee.batch_axes.insert(generic).second)
            changed = true;
        }
      }
    }
  }
  const int count = std::max(device_count_, world_);
  if (count <= 1) return;
  const std::string devices = std::to_string(count) + " devices";

  for (auto& [name, fn] : fns_) {
    if (fn.item->is_extern) continue;
    // E1803: device work in the controller.
    if (fn.controller && !fn.device_work.empty()) {
      auto& d =
          r_.error(Code::E1803, fn.device_work.front(),
                   "`" + name + "` runs in the controller, and this is device work", "device work");
      for (std::size_t i = 1; i < fn.device_work.size(); ++i)
        r_.secondary(d, fn.device_work[i], "device work too");
      r_.secondary(d, fn.controller_reason,
                   "`" + name + "` runs in the controller: " + fn.controller_why);
      d.help =
          "move the device work into a function of its own, as the README's train_step is, and "
          "call it from "
          "the loop";
    }
    // E1802: a batch whose size is fixed.
    for (std::size_t i = 0; i < fn.params.size(); ++i) {
      const Type& t = fn.params[i];
      if (t.is(Type::Kind::batch) &&
          !(t.batch_axis.single() && t.batch_axis.factors[0].kind == Factor::Kind::generic))
        r_.error(
              Code::E1802, fn.item->params[i].type.span,
              "a batch of fixed size " + t.batch_axis.str() + " can't be split across " + devices,
              "fixed size")
            .help =
            "give the batch a generic axis, `[b] " + t.name + "`: each device holds part of it";
    }
    std::set<std::pair<std::uint32_t, int>> reported;
    for (const auto& ev : fn.events) {
      if (!fn.batch_axes.count(ev.axis)) continue;
      if (!reported.insert({ev.span.begin, static_cast<int>(ev.kind)}).second) continue;
      switch (ev.kind) {
        case BatchEvent::Kind::no_lowering:
          r_.error(Code::E1801, ev.span,
                   "`" + ev.what + "` along the batch axis `" + ev.axis + "` has no lowering for " +
                       devices,
                   "along the batch axis")
              .help =
              "compute it per example, or with one of the operations that have a lowering (sum, "
              "mean, "
              "cross_entropy, @, einsum, reduce with sum), or declare one device";
          break;
        case BatchEvent::Kind::grouped:
          r_.error(Code::E1802, ev.span,
                   "the batch axis `" + ev.axis + "` is grouped with another axis in " + ev.what,
                   "groups the batch axis")
              .help = "keep the batch axis apart, as in b (h w) rather than (b h) w";
          break;
        case BatchEvent::Kind::twice:
          r_.error(Code::E1802, ev.span,
                   "this value, " + ev.what + ", has the batch axis `" + ev.axis + "` twice",
                   "the batch axis twice")
              .help =
              "with several devices each holds part of the batch once; contract one of the two";
          break;
        case BatchEvent::Kind::as_number:
          r_.error(Code::E1802, ev.span,
                   "the batch's size `" + ev.axis + "` used as a number: on each of " + devices +
                       " it would be that device's part",
                   "the batch size")
              .help = "use mean rather than a sum divided by " + ev.axis;
          break;
        case BatchEvent::Kind::to_any:
          r_.error(Code::E1802, ev.span,
                   "a value with the batch axis `" + ev.axis + "` passed to `" + ev.what +
                       "`'s `tensor` parameter",
                   "split across devices")
              .help =
              "host functions take whole values: reduce over the batch first, or give the "
              "parameter a shape";
          break;
      }
    }
  }

  // E1804: a device function compiled once, its parameter split at one call
  // and whole at another.
  struct Use {
    Span arg;
    bool split;
  };
  for (auto& [name, callee] : fns_) {
    if (callee.item->is_extern || callee.controller) continue;
    for (std::size_t p = 0; p < callee.params.size(); ++p) {
      std::vector<Use> uses;
      for (const auto& [caller_name, caller] : fns_) {
        for (const auto& call : caller.calls) {
          if (call.callee != name || p >= call.arg_spans.size() || p >= call.arg_axes.size())
            continue;
          bool split = false;
          for (const auto& a : call.arg_axes[p]) split = split || caller.batch_axes.count(a) > 0;
          uses.push_back({call.arg_spans[p], split});
        }
      }
      const Use* split = nullptr;
      for (const auto& u : uses)
        if (u.split) split = &u;
      if (!split) continue;
      for (const auto& u : uses) {
        if (u.split) continue;
        auto& d = r_.error(Code::E1804, u.arg,
                           "`" + name + "`'s parameter `" + callee.item->params[p].name +
                               "` is split across " + devices +
                               " at another call, and this value is whole",
                           "a whole value");
        r_.secondary(d, split->arg, "a value with the batch axis: split");
        d.help = "call a function of its own for whole values";
      }
    }
  }
}

namespace {

// Gives every expression of the program its id, 1 up; returns how many.
std::uint32_t number_expressions(const syntax::Program& p) {
  std::uint32_t next = 0;
  std::vector<const Expr*> pending;
  const auto push = [&](const syntax::ExprPtr& e) {
    if (e) pending.push_back(e.get());
  };
  std::vector<const Stmt*> stmts;
  for (const auto& fn : p.fns) {
    push(fn.expr_body);
    for (const auto& s : fn.body) stmts.push_back(&s);
  }
  for (const auto& m : p.models)
    for (const auto& member : m.members) push(member.init);
  while (!stmts.empty()) {
    const Stmt* s = stmts.back();
    stmts.pop_back();
    push(s->value);
    for (const auto& t : s->targets) push(t);
    for (const auto& b : s->body) stmts.push_back(&b);
    for (const auto& b : s->else_body) stmts.push_back(&b);
  }
  while (!pending.empty()) {
    const Expr* e = pending.back();
    pending.pop_back();
    e->id = ++next;
    for (const auto& item : e->items) push(item);
    for (const auto& kw : e->kwargs) push(kw.value);
    for (const auto& part : e->parts) push(part.expr);
  }
  return next;
}

}  // namespace

TypedProgram Checker::run() {
  typed_.types.resize(number_expressions(p_) + 1);
  declare_items();
  place_functions();
  for (auto& [name, fn] : fns_) check_function(fn);
  several_device_rules();

  typed_.device_count = device_count_;
  typed_.device_kind = device_kind_;
  typed_.device_indices = device_indices_;
  for (const auto& [name, dim] : dims_) typed_.dims[name] = dim.value;
  for (const auto& [name, model] : models_) {
    if (model.base.empty() && model.item && !model.item->dims.empty()) continue;  // generic
    for (const auto& m : model.members) {
      const syntax::Expr* init = nullptr;
      if (model.item)  // a stack has none: its members are its element's
        for (const auto& decl : model.item->members)
          if (decl.name == m.name && decl.init) init = decl.init.get();
      typed_.models[name].push_back({m.name, m.type, m.is_param, init});
    }
  }
  for (const auto& [name, record] : records_)
    for (const auto& f : record.fields) typed_.records[name].emplace_back(f.name, f.type);
  for (const auto& [name, fn] : fns_) typed_.functions[name] = fn;  // the FunctionInfo part
  typed_.sinks = sinks_;
  return std::move(typed_);
}

TypedProgram check_program(const syntax::Program& program, diag::Reporter& reporter, int world) {
  Checker checker(program, reporter);
  checker.world_ = world;
  return checker.run();
}

}  // namespace ss::check
