// Function bodies: parameters, bindings (Python-style: visible after they
// run), loops, conditions and returns.
#include "check/checker_impl.hpp"

namespace ss::check {
namespace {

bool always_returns(const std::vector<Stmt>& body) {
  for (const auto& s : body) {
    if (s.kind == syntax::StmtKind::return_) return true;
    if (s.kind == syntax::StmtKind::if_ && s.has_else && always_returns(s.body) &&
        always_returns(s.else_body))
      return true;
  }
  return false;
}

}  // namespace

void Checker::check_function(FnInfo& fn) {
  const auto& item = *fn.item;
  if (item.is_extern) return;
  FnCtx ctx;
  ctx.fn = &fn;
  for (std::size_t i = 0; i < item.params.size(); ++i) {
    const auto& p = item.params[i];
    const Type& t = fn.params[i];
    ctx.vars[p.name] = Var{t, p.name_span, true, p.is_mut};
    if (t.is(Type::Kind::batch) && t.batch_axis.single() &&
        t.batch_axis.factors[0].kind == Factor::Kind::generic)
      fn.batch_axes.insert(t.batch_axis.factors[0].name);
  }
  if (item.expr_body) {
    check_return(item.expr_body.get(), item.expr_body->span, ctx);
    return;
  }
  check_block(item.body, ctx);
  if (fn.has_ret && !fn.ret.is(Type::Kind::none) && !always_returns(item.body)) {
    r_.error(Code::E0905, item.name_span,
             "`" + item.name + "` can end without returning " + fn.ret.str(),
             "declared to return " + fn.ret.str())
        .help = "end every path through the body with `return`";
  }
}

void Checker::check_block(const std::vector<Stmt>& body, FnCtx& ctx) {
  for (const auto& s : body) check_stmt(s, ctx);
}

void Checker::check_stmt(const Stmt& s, FnCtx& ctx) {
  FnInfo& fn = *ctx.fn;
  switch (s.kind) {
    case syntax::StmtKind::expr:
      (void)expr(*s.value, ctx);
      return;
    case syntax::StmtKind::assign:
      check_assign(s, ctx);
      return;
    case syntax::StmtKind::return_:
      check_return(s.value.get(), s.span, ctx);
      return;
    case syntax::StmtKind::break_:
      if (ctx.loops == 0)
        r_.error(Code::E1502, s.span, "`break` outside a loop", "not in a `for`").help =
            "`break` leaves the innermost `for` loop; here there is none";
      return;
    case syntax::StmtKind::for_: {
      scan_iterable_ = s.value.get();  // where `slices(...)` may be written
      const Type it = expr(*s.value, ctx);
      scan_iterable_ = nullptr;
      if (stack_of(it) || it.is(Type::Kind::slices)) {
        check_scan(s, it, ctx);
        return;
      }
      Type var = Type::error();
      switch (it.kind) {
        case Type::Kind::range: {
          var = Type::of(Type::Kind::integer);
          if (!fn.controller && is_call_to(*s.value, "range")) {
            for (std::size_t i = 1; i < s.value->items.size(); ++i) {
              const Type bound = expr(*s.value->items[i], ctx);
              if (!bound.static_value && !bound.is_error())
                r_.error(Code::E1505, s.value->items[i]->span,
                         "device code loops `range` over a count known only at run time",
                         "not static")
                    .help =
                    "in device code a loop is unrolled: its count must be a literal or a dim";
            }
          }
          break;
        }
        case Type::Kind::batches: {
          var = Type::of(Type::Kind::batch, it.name);
          var.batch_axis = it.batch_axis;
          if (it.batch_axis.single()) fn.batch_axes.insert(it.batch_axis.factors[0].name);
          break;
        }
        case Type::Kind::dataset:
          var = Type::of(Type::Kind::record, it.name);
          break;
        case Type::Kind::error:
          break;
        default:
          r_.error(Code::E1403, s.value->span, "`for` can't loop over " + it.str(),
                   "not a dataset or a range")
              .help =
              "loop over `range(k)`, a dataset, a dataset's batches (`data |> batches(64)`), "
              "a stack's layers (`m.blocks`) or a tensor's slices (`slices(x, over=T)`)";
      }
      ctx.vars[s.loop_var] = Var{var, s.loop_var_span, false, false};
      ++ctx.loops;
      check_block(s.body, ctx);
      --ctx.loops;
      return;
    }
    case syntax::StmtKind::if_: {
      const Type c = expr(*s.value, ctx);
      if (c.is_tensor()) {
        if (!c.axes.empty()) {
          r_.error(Code::E1506, s.value->span, "`if` on a tensor of shape " + axes_str(c.axes),
                   "not a single value")
              .help =
              "choose element by element with `where(c, a, b)`, or reduce to a scalar first";
        } else if (c.elem.kind != ElemKind::boolean) {
          r_.error(Code::E0504, s.value->span, "`if` needs a bool, not " + c.str(), "not a bool")
              .help = "compare it: `if x > 0:`";
        } else if (!fn.controller && !c.static_value) {
          r_.error(Code::E1501, s.value->span, "`if` on a tensor in device code",
                   "a tensor's value")
              .help =
              "device code branches only on static values (dims, literals); choose values with "
              "`where(c, a, b)`";
        }
      } else if (!c.is_error() && !c.is_scalar_number()) {
        r_.error(Code::E0504, s.value->span, "`if` needs a bool, not " + c.str(), "not a bool")
            .help = "compare it: `if x > 0:`";
      }
      check_block(s.body, ctx);
      check_block(s.else_body, ctx);
      return;
    }
  }
}

void Checker::check_assign(const Stmt& s, FnCtx& ctx) {
  if (s.annotation) {
    std::set<std::string> generics = ctx.fn->generics;
    const Type annotated = resolve_type(*s.annotation, &generics, true);
    const Type value = expr(*s.value, ctx, &annotated);
    if (!assignable(annotated, value))
      r_.error(Code::E0507, s.value->span,
               "the value is " + value.str() + ", not " + annotated.str(),
               "declared " + annotated.str())
          .help = "change the annotation or the value";
    bind(ctx, *s.targets[0], annotated);
    return;
  }
  const Type value = expr(*s.value, ctx);
  if (s.targets.size() > 1) {
    if (value.is_error()) {
      for (const auto& t : s.targets) bind(ctx, *t, Type::error());
      return;
    }
    if (!value.is(Type::Kind::tuple) || value.items.size() != s.targets.size()) {
      const std::string got = value.is(Type::Kind::tuple)
                                  ? std::to_string(value.items.size()) + " values"
                                  : "one value";
      r_.error(Code::E0911, s.value->span, std::to_string(s.targets.size()) + " names for " + got,
               "gives " + got)
          .help = "bind as many names as the value has parts";
      for (const auto& t : s.targets) bind(ctx, *t, Type::error());
      return;
    }
    for (std::size_t i = 0; i < s.targets.size(); ++i) bind(ctx, *s.targets[i], value.items[i]);
    return;
  }
  bind(ctx, *s.targets[0], value);
}

void Checker::bind(FnCtx& ctx, const Expr& target, const Type& type) {
  if (target.kind == ExprKind::name) {
    auto it = ctx.vars.find(target.text);
    if (it != ctx.vars.end() && it->second.is_param) {
      it->second.type = type;  // rebinding a parameter's name: the new value from here on
      it->second.is_mut = false;
      return;
    }
    ctx.vars[target.text] = Var{type, target.span, false, true};
    return;
  }
  // `m.w = value` and `opt.lr = value`
  const Expr& base = *target.items[0];
  const Type owner = expr(base, ctx);
  if (owner.is_error()) return;
  if (base.kind == ExprKind::name) {
    const auto it = ctx.vars.find(base.text);
    if (it != ctx.vars.end() && it->second.is_param && !it->second.is_mut) {
      r_.error(Code::E1504, target.span,
               "`" + base.text + "` is changed, but the parameter isn't `mut`",
               "changes `" + base.text + "`")
          .help = "declare it `mut " + base.text + ": " + owner.str() + "` and pass it as `mut " +
                  base.text + "`";
      return;
    }
  }
  if (owner.is(Type::Kind::optimizer)) {
    if (target.text != "lr") {
      r_.error(Code::E1303, target.span, "an optimiser's `" + target.text + "` can't be set",
               "not settable")
          .help = "only `lr` changes after construction (`opt.lr = 1e-4`), for schedules";
      return;
    }
    if (!type.is_scalar_number() && !(type.is_tensor() && type.axes.empty()) && !type.is_error())
      r_.error(Code::E0507, target.span, "`lr` takes a number, not " + type.str(), "not a number");
    return;
  }
  if (!owner.is(Type::Kind::model)) {
    r_.error(Code::E0207, target.span, "can't assign to a field of " + owner.str(), "not a model")
        .help = "only a model's parameters (`m.w = ...`) and an optimiser's `lr` can be set";
    return;
  }
  const Member* m = models_.at(owner.name).member(target.text);
  if (!m) {
    r_.error(Code::E1101, target.span,
             "model `" + owner.name + "` has no parameter `" + target.text + "`", "unknown")
        .help = "its members are declared in `model " + owner.name + ":`";
    return;
  }
  if (!assignable(m->type, type))
    r_.error(Code::E0507, target.span,
             "`" + target.text + "` is " + m->type.str() + ", the value " + type.str(),
             "different type")
        .help = "a parameter keeps its shape and element type";
}

void Checker::check_return(const Expr* value, Span span, FnCtx& ctx) {
  FnInfo& fn = *ctx.fn;
  const Type t = value ? expr(*value, ctx, fn.has_ret ? &fn.ret : nullptr) : Type::none();
  if (!fn.has_ret) {
    if (value && !t.is(Type::Kind::none) && !t.is_error())
      r_.error(Code::E0910, value->span,
               "`" + fn.item->name + "` returns " + t.str() + " but declares no return type",
               "a value")
          .help = "declare it: `fn " + fn.item->name + "(...) -> " + t.str() + "`";
    return;
  }
  if (!value) {
    r_.error(Code::E0904, span, "`return` without a value in a function returning " + fn.ret.str(),
             "no value")
        .help = "return a " + fn.ret.str();
    return;
  }
  if (assignable(fn.ret, t)) return;
  const bool shapes = fn.ret.is_tensor() && t.is_tensor();
  auto& d = r_.error(shapes ? Code::E0605 : Code::E0904, value->span,
                     "`" + fn.item->name + "` returns " + t.str() + ", declared " + fn.ret.str(),
                     "this is " + t.str());
  r_.secondary(d, fn.item->ret->span, "declared here");
  d.help = shapes && t.axes.size() == fn.ret.axes.size()
               ? "the axes must be the same dims in the same order (use rearrange to reorder)"
               : "return a value of the declared type, or change the declaration";
}

}  // namespace ss::check
