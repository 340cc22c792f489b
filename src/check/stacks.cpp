// Stacks of layers and scans (wave2.md §2): `blocks: [L] Block` as a model
// of L members named 0 up (so checkpoints name `blocks.0.w`, as PyTorch's
// nn.ModuleList does), `m.blocks[2]`, and the device loops that step over
// a stack or over a tensor's axis (`for k in m.blocks`,
// `for xt in slices(x, over=T)`): one body, lowered once.
#include "check/checker_impl.hpp"

namespace ss::check {
namespace {

// A statement in a scan's body that a scan can't have: `break`, `return`.
const Stmt* escape(const std::vector<Stmt>& body) {
  for (const auto& s : body) {
    if (s.kind == syntax::StmtKind::break_ || s.kind == syntax::StmtKind::return_) return &s;
    // an inner `for` owns its `break`s, not its `return`s
    for (const auto* block : {&s.body, &s.else_body})
      if (const Stmt* found = escape(*block);
          found && !(s.kind == syntax::StmtKind::for_ && found->kind == syntax::StmtKind::break_))
        return found;
  }
  return nullptr;
}

// An assignment to a field (`m.w = ...`, `k.w = ...`) in a scan's body,
// which would change a model once per step and be lost after.
const Stmt* field_assignment(const std::vector<Stmt>& body) {
  for (const auto& s : body) {
    if (s.kind == syntax::StmtKind::assign)
      for (const auto& t : s.targets)
        if (t->kind == ExprKind::member) return &s;
    for (const auto* block : {&s.body, &s.else_body})
      if (const Stmt* found = field_assignment(*block)) return found;
  }
  return nullptr;
}

// Where a name is first assigned in a body, for a carry's diagnostic.
const Stmt* assignment_of(const std::vector<Stmt>& body, const std::string& name) {
  for (const auto& s : body) {
    if (s.kind == syntax::StmtKind::assign)
      for (const auto& t : s.targets)
        if (t->kind == ExprKind::name && t->text == name) return &s;
    for (const auto* block : {&s.body, &s.else_body})
      if (const Stmt* found = assignment_of(*block, name)) return found;
  }
  return nullptr;
}

}  // namespace

Type Checker::stack_type(const TypeExpr& t, std::set<std::string>* generics, bool allow_generic) {
  if (t.axes.size() != 1) {
    r_.error(Code::E1110, t.span,
             "a stack has one axis, its count of layers; this has " + std::to_string(t.axes.size()),
             "not one axis")
        .help = "write `blocks: [L] " + t.elem + "` with L a dim of known size, or a literal";
    return Type::error();
  }
  const auto length = resolve_axis(t.axes[0], generics, allow_generic);
  if (!length) return Type::error();
  const auto count = static_size(*length);
  if (!count || *count < 1) {
    r_.error(Code::E1110, t.axes[0].span,
             count ? "a stack of " + std::to_string(*count) + " layers"
                   : "a stack's count of layers must be known when the program compiles",
             count ? "not a count of layers" : "not a sized dim or literal")
        .help = "give the count as a literal or a dim with a size: `dim L = 4`, then `[L] " +
                t.elem + "`; a host can't size it at load, since each layer is a member";
    return Type::error();
  }
  TypeExpr named;
  named.kind = TypeExpr::Kind::named;
  named.name = t.elem;
  named.span = t.elem_span;
  named.args = t.args;
  named.axis_args = t.axis_args;
  const Type element = model_type(named, generics, allow_generic);
  if (element.is_error()) return element;
  for (const auto& a : element.axes)
    for (const auto& f : a.factors)
      if (local_dims_.count(f.name)) {
        r_.error(Code::E1110, t.span,
                 "a stack inside a generic model of a layer generic in the model's own dims",
                 "uses `" + f.name + "`")
            .help =
            "stack layers whose dims are the program's (`[L] Linear[D, D]`), or declare "
            "the stack in a model that isn't generic";
        return Type::error();
      }
  const std::string name = "[" + length->str() + "] " + element.name;
  ModelInfo& info = models_[name];
  if (!info.stack) {
    info.stack = true;
    for (std::int64_t k = 0; k < *count; ++k)
      info.members.push_back({std::to_string(k), element, false, t.span});
    info.filled = true;
    typed_.stacks[name] = *length;
  }
  return Type::of(Type::Kind::model, name);
}

const ModelInfo* Checker::stack_of(const Type& t) const {
  if (!t.is(Type::Kind::model)) return nullptr;
  const auto it = models_.find(t.name);
  return it != models_.end() && it->second.stack ? &it->second : nullptr;
}

Type Checker::stack_index(const Expr& e, const ModelInfo& stack, FnCtx& ctx) {
  const auto count = static_cast<std::int64_t>(stack.members.size());
  if (e.items.size() != 2 || !e.kwargs.empty() || e.items[1]->kind == ExprKind::slice) {
    r_.error(Code::E1513, e.span, "a stack takes one index, a layer's number", "not one index")
        .help = "pick a layer with `m.blocks[2]`; loop over them with `for k in m.blocks:`";
    return Type::error();
  }
  const Expr& at = *e.items[1];
  const Type t = expr(at, ctx);
  std::optional<std::int64_t> k;
  if (at.kind == ExprKind::integer) k = at.int_value;
  if (at.kind == ExprKind::unary && at.text == "-" && at.items[0]->kind == ExprKind::integer)
    k = -at.items[0]->int_value;
  if (at.kind == ExprKind::name)
    if (const auto d = dims_.find(at.text); d != dims_.end()) k = d->second.value;
  if (t.is_error()) return t;
  // In device code an int may be an unrolled loop's (`for i in range(L)`):
  // static by lowering, which picks the layer and checks the range.
  if (!k && !ctx.fn->controller && t.is(Type::Kind::integer)) return stack.members[0].type;
  if (!k) {
    r_.error(Code::E1513, at.span, "a stack's index must be known when the program compiles",
             "not static")
        .help =
        "index with a literal or a sized dim (`m.blocks[0]`, `m.blocks[-1]`); to run "
        "every layer, loop: `for k in m.blocks:`";
    return Type::error();
  }
  if (*k < -count || *k >= count) {
    r_.error(Code::E1513, at.span,
             "layer " + std::to_string(*k) + " of a stack of " + std::to_string(count),
             "out of range")
        .help = "a stack of " + std::to_string(count) + " has layers 0 to " +
                std::to_string(count - 1) + " (or -" + std::to_string(count) + " to -1)";
    return Type::error();
  }
  typed_.axes[&e] = {static_cast<std::size_t>(*k < 0 ? *k + count : *k)};
  return stack.members[0].type;
}

Type Checker::slices_call(const Expr& e, std::vector<Type>& args, std::vector<Span>& spans,
                          FnCtx& ctx) {
  check_kwargs(e, {"over"}, "slices");
  if (!arg_count("slices", e, args.size(), 1, 1)) return Type::error();
  if (&e != scan_iterable_) {  // a value of its own: nothing could lower it
    r_.error(Code::E1512, e.span, "slices are stepped over in a `for` line, not kept",
             "slices made outside a `for` line")
        .help = "write `for xt in slices(x, over=T):`, or take one slice: `x[T=0]`";
    return Type::error();
  }
  const Type x = as_tensor(args[0]);
  if (x.is_error()) return x;
  if (!x.is_tensor() || x.axes.empty()) {
    r_.error(Code::E0601, spans[0], "`slices` steps along an axis of a tensor, not " + x.str(),
             "no axis to step along")
        .help = "write `for xt in slices(x, over=T):` with x a tensor that has T";
    return Type::error();
  }
  const auto* over = kwarg(e, "over");
  const auto at = over_axes(over ? over->value.get() : nullptr, x, e.span, ctx, true);
  if (!at) return Type::error();
  typed_.axes[&e] = *at;
  const std::size_t k = (*at)[0];
  no_lowering(ctx, x.axes[k], over->value->span, "slices");
  Type out = Type::of(Type::Kind::slices);
  out.axes = x.axes;
  out.axes.erase(out.axes.begin() + static_cast<std::ptrdiff_t>(k));
  out.elem = x.elem;
  out.batch_axis = x.axes[k];
  return out;
}

void Checker::check_scan(const Stmt& s, const Type& over, FnCtx& ctx) {
  const bool stack = over.is(Type::Kind::model);
  if (!stack && !is_call_to(*s.value, "slices")) {
    r_.error(Code::E1512, s.value->span, "a loop over slices names them in its `for` line",
             "slices made elsewhere")
        .help = "write `for xt in slices(x, over=T):`";
    return;
  }
  if (ctx.fn->controller) {
    r_.error(Code::E1512, s.value->span,
             std::string("a loop over ") + (stack ? "a stack's layers" : "slices") +
                 " runs in device code, and `" + ctx.fn->item->name + "` runs in the controller",
             "a scan")
        .help =
        "move the loop into a device function the controller calls (one that doesn't "
        "print, load or train)";
  }
  if (const Stmt* bad = escape(s.body))
    r_.error(Code::E1512, bad->span,
             std::string("a scan's body runs once for every step: it has no `") +
                 (bad->kind == syntax::StmtKind::break_ ? "break" : "return") + "`",
             "in a scan")
        .help = "assign what the steps carry to a name bound before the loop, and return after it";
  if (const Stmt* bad = field_assignment(s.body))
    r_.error(Code::E1512, bad->span, "a scan's body can't change a model's parameters",
             "changes a field")
        .help = "compute the new values in the loop, carried in tensors, and assign them after it";
  Type var = over;
  if (stack) {
    var = stack_of(over)->members[0].type;
  } else {
    var.kind = Type::Kind::tensor;
    var.batch_axis = {};
  }
  const std::map<std::string, Var> before = ctx.vars;
  ctx.vars[s.loop_var] = Var{var, s.loop_var_span, false, false};
  ++ctx.loops;  // a `break` in the body is E1512's, not E1502's
  check_block(s.body, ctx);
  --ctx.loops;
  // What the body assigned to names bound before is the carry; names it
  // bound first are its own.
  for (auto it = ctx.vars.begin(); it != ctx.vars.end();) {
    const auto was = before.find(it->first);
    if (was == before.end()) {
      it = ctx.vars.erase(it);
      continue;
    }
    const Type& now = it->second.type;
    const Type& then = was->second.type;
    const bool other = it->first != s.loop_var && !now.is_error();
    const Stmt* at = other ? assignment_of(s.body, it->first) : nullptr;
    const Span where = at ? at->span : s.span;
    if (other && !then.is_error() && now.str() != then.str()) {
      r_.error(Code::E1511, where,
               "`" + it->first + "` is " + then.str() + " before the loop and " + now.str() +
                   " after a step",
               "changes its type")
          .help =
          "what a scan carries from step to step keeps its type; bind a new name for "
          "the other value";
    } else if (at && !now.is_tensor()) {
      r_.error(Code::E1511, where, "a scan carries tensors; `" + it->first + "` is " + now.str(),
               "not a tensor")
          .help = "carry a tensor (`h = h + f(k, h)`); a number the steps change isn't static";
    }
    ++it;
  }
  if (const auto it = before.find(s.loop_var); it != before.end())
    ctx.vars[s.loop_var] = it->second;
}

}  // namespace ss::check
