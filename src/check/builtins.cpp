// Calls: dispatch to the program's functions, model constructors and the
// built-ins; here the tensor built-ins (math, reductions, softmax, losses).
#include <algorithm>

#include "check/checker_impl.hpp"
#include "types/size_arith.hpp"
#include "types/unary_functions.hpp"

namespace ss::check {

bool Checker::is_builtin(const std::string& name) const {
  return builtin_names().count(name) > 0;
}

const syntax::KwArg* Checker::kwarg(const Expr& e, const std::string& name) const {
  for (const auto& kw : e.kwargs)
    if (kw.name == name) return &kw;
  return nullptr;
}

void Checker::check_kwargs(const Expr& e, std::initializer_list<const char*> allowed,
                           const std::string& fn) {
  std::set<std::string> seen;
  for (const auto& kw : e.kwargs) {
    if (!seen.insert(kw.name).second) {
      r_.error(Code::E0909, kw.name_span, "`" + kw.name + "=` is given twice", "again").help =
          "give each keyword argument once";
      continue;
    }
    if (std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return kw.name == a; }) !=
        allowed.end())
      continue;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "`" : ", `") + std::string(a) + "=`";
    r_.error(Code::E0902, kw.name_span, "`" + fn + "` has no argument `" + kw.name + "`", "unknown")
        .help =
        list.empty() ? "`" + fn + "` takes no keyword arguments" : "`" + fn + "` takes " + list;
  }
}

bool Checker::arg_count(const std::string& name, const Expr& e, std::size_t given, std::size_t lo,
                        std::size_t hi) {
  if (given >= lo && given <= hi) return true;
  const std::string want =
      lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
  r_.error(Code::E0901, e.span,
           "`" + name + "` takes " + want + " argument" + (hi == 1 ? "" : "s") + ", given " +
               std::to_string(given),
           "wrong count")
      .help = "see `" + name + "` in docs/language.md";
  return false;
}

void Checker::no_lowering(FnCtx& ctx, const Axis& axis, Span span, const std::string& what) {
  for (const auto& f : axis.factors)
    if (f.kind == Factor::Kind::generic)
      ctx.fn->events.push_back({BatchEvent::Kind::no_lowering, f.name, span, what});
}

std::optional<Axis> Checker::axis_from_name(const Expr& e, FnCtx& ctx) {
  if (e.kind == ExprKind::name) {
    if (auto axis = dim_axis(e.text)) return axis;
    if (ctx.fn->generics.count(e.text)) return Axis::generic(e.text);
    for (const auto& a : ctx.fn->batch_axes)
      if (a == e.text) return Axis::generic(e.text);
    r_.error(Code::E0703, e.span, "no axis is named `" + e.text + "`", "not a dim or generic axis")
        .help = "name a declared dim or a generic axis of this function's signature";
    return std::nullopt;
  }
  if (e.kind == ExprKind::integer) {
    if (e.int_value <= 0) {
      r_.error(Code::E0403, e.span, "an axis of size " + std::to_string(e.int_value),
               "not a positive size")
          .help = "sizes are 1 or more";
      return std::nullopt;
    }
    return Axis::literal(e.int_value);
  }
  if (e.kind == ExprKind::binary &&
      (e.text == "*" || e.text == "+" || e.text == "-" || e.text == "/" || e.text == "//")) {
    std::set<std::string> generic_names;
    auto tree = axis_tree(e, ctx, generic_names);
    if (!tree) return std::nullopt;
    return axis_of(*tree, e.span, generic_names);
  }
  r_.error(Code::E0703, e.span, "expected an axis: a dim, a generic axis or a size", "not an axis")
      .help = "write a dim (`D`), a generic axis (`b`), a size (`3`) or a product (`b*D`)";
  return std::nullopt;
}

std::optional<types::DimExpr> Checker::axis_tree(const Expr& e, FnCtx& ctx,
                                                 std::set<std::string>& generic_names) {
  using types::DimExpr;
  if (e.kind == ExprKind::binary) {
    const DimExpr::Kind kind = e.text == "*"    ? DimExpr::Kind::mul
                               : e.text == "+"  ? DimExpr::Kind::add
                               : e.text == "-"  ? DimExpr::Kind::sub
                               : e.text == "/"  ? DimExpr::Kind::div
                               : e.text == "//" ? DimExpr::Kind::floordiv
                                                : DimExpr::Kind::literal;
    if (kind != DimExpr::Kind::literal) {
      auto l = axis_tree(*e.items[0], ctx, generic_names);
      if (!l) return std::nullopt;
      auto r = axis_tree(*e.items[1], ctx, generic_names);
      if (!r) return std::nullopt;
      return DimExpr::op(kind, std::move(*l), std::move(*r));
    }
  }
  if (e.kind == ExprKind::name)
    if (auto dim = declared_dim(e.text)) return dim;
  // A generic axis, a literal, or a mistake axis_from_name reports.
  auto axis = axis_from_name(e, ctx);
  if (!axis) return std::nullopt;
  if (e.kind == ExprKind::integer) return DimExpr::literal(e.int_value);
  if (e.kind != ExprKind::name || !axis->single()) {
    r_.error(Code::E0703, e.span, "expected an axis: a dim, a generic axis or a size",
             "not an axis");
    return std::nullopt;
  }
  generic_names.insert(e.text);
  return DimExpr::named(e.text);
}

std::optional<std::vector<Axis>> Checker::shape_from_expr(const Expr& e, FnCtx& ctx) {
  if (e.kind != ExprKind::list) {
    r_.error(Code::E0505, e.span, "expected a shape such as `[D C]`", "not a shape").help =
        "write the axes in brackets: `zeros([D C])`, `zeros([])` for a scalar";
    return std::nullopt;
  }
  std::vector<Axis> axes;
  for (const auto& item : e.items) {
    auto a = axis_from_name(*item, ctx);
    if (!a) return std::nullopt;
    axes.push_back(std::move(*a));
  }
  return axes;
}

std::optional<std::vector<std::size_t>> Checker::over_axes(const Expr* over, const Type& x,
                                                           Span call_span, FnCtx& ctx,
                                                           bool required_single) {
  std::vector<std::size_t> out;
  if (!over) {
    if (required_single) {
      r_.error(Code::E0714, call_span, "this operation needs `over=` naming one axis", "no `over=`")
          .help = "name the axis: `over=C`, or by position: `over=-1`";
      return std::nullopt;
    }
    for (std::size_t i = 0; i < x.axes.size(); ++i) out.push_back(i);
    return out;
  }
  for (const Expr* item : listed(*over)) {
    if (item->kind == ExprKind::integer) {
      const auto rank = static_cast<std::int64_t>(x.axes.size());
      std::int64_t k = item->int_value;
      if (k < 0) k += rank;
      if (k < 0 || k >= rank) {
        r_.error(Code::E0705, item->span,
                 "axis position " + std::to_string(item->int_value) + " is outside " + x.str(),
                 "out of range")
            .help = "positions run from 0 to " + std::to_string(rank - 1) + ", or from -1 back";
        return std::nullopt;
      }
      out.push_back(static_cast<std::size_t>(k));
      continue;
    }
    if (item->kind != ExprKind::name) {
      r_.error(Code::E0703, item->span,
               "`over=` takes an axis's name, a position or a list of them", "not an axis")
          .help = "write `over=C`, `over=-1` or `over=[A B]`";
      return std::nullopt;
    }
    auto axis = axis_from_name(*item, ctx);
    if (!axis) return std::nullopt;
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < x.axes.size(); ++i)
      if (x.axes[i] == *axis) at.push_back(i);
    if (at.empty()) {
      r_.error(Code::E0703, item->span,
               "the value " + x.str() + " has no axis `" + item->text + "`", "not one of its axes")
          .help = "name one of " + axes_str(x.axes) + ", or give a position";
      return std::nullopt;
    }
    if (at.size() > 1) {
      r_.error(Code::E0704, item->span,
               "`" + item->text + "` is " + x.str() + "'s axis more than once", "ambiguous")
          .help = "name it by position: `over=" +
                  std::to_string(static_cast<std::int64_t>(at.back()) -
                                 static_cast<std::int64_t>(x.axes.size())) +
                  "`";
      return std::nullopt;
    }
    if (std::find(out.begin(), out.end(), at[0]) != out.end()) {
      r_.error(Code::E0709, item->span, "`" + item->text + "` is named twice", "again").help =
          "name each axis once";
      return std::nullopt;
    }
    out.push_back(at[0]);
  }
  if (required_single && out.size() != 1) {
    r_.error(Code::E0714, over->span,
             "this operation works along one axis, not " + std::to_string(out.size()),
             "several axes")
        .help = "name one axis";
    return std::nullopt;
  }
  return out;
}

Axis Checker::fresh_batch_axis(FnCtx& ctx) {
  std::string name;
  do {
    name = ctx.fresh == 0 ? "b" : "b" + std::to_string(ctx.fresh + 1);
    ++ctx.fresh;
  } while (ctx.fn->generics.count(name));
  ctx.fn->generics.insert(name);
  return Axis::generic(name);
}

Type Checker::call_expr(const Expr& e, FnCtx& ctx, const Type* piped, Span piped_span,
                        const Type* expected) {
  const Expr& callee = *e.items[0];
  std::vector<Type> args;
  std::vector<Span> spans;
  if (piped) {
    args.push_back(*piped);
    spans.push_back(piped_span);
  }
  const std::string callee_name = callee.kind == ExprKind::name ? callee.text : std::string();
  for (std::size_t i = 1; i < e.items.size(); ++i) {
    const Expr& arg = *e.items[i];
    if (arg.kind == ExprKind::pattern) continue;
    // Written forms that aren't values: a shape `[D C]`, arange's axis,
    // reduce's operation.
    const bool shape = arg.kind == ExprKind::list && arg.text == "shape" && is_builtin(callee_name);
    const bool axis = callee_name == "arange" && arg.kind == ExprKind::name;
    const bool op = callee_name == "reduce" && i == 3 && arg.kind == ExprKind::name;
    if (shape || axis || op) {
      args.push_back(Type::of(shape ? Type::Kind::shape : Type::Kind::integer));
    } else {
      args.push_back(expr(arg.kind == ExprKind::mut ? *arg.items[0] : arg, ctx));
    }
    spans.push_back(arg.span);
  }
  for (const auto& t : args)
    if (t.is_error()) return Type::error();

  // Index[C](x): a range-checked cast to indices.
  if (callee.kind == ExprKind::index && callee.items[0]->kind == ExprKind::name &&
      callee.items[0]->text == "Index") {
    if (callee.items.size() != 2 || args.size() != 1) {
      r_.error(Code::E0901, e.span, "`Index[C](x)` takes one dim and one argument", "malformed")
          .help = "write `Index[C](x)`";
      return Type::error();
    }
    auto of = axis_from_name(*callee.items[1], ctx);
    if (!of) return Type::error();
    const Type x = as_tensor(args[0]);
    if (!x.is_tensor() || !x.elem.is_integer()) {
      r_.error(Code::E0503, spans[0], "`Index[" + of->str() + "]` casts integers, not " + x.str(),
               "not integers")
          .help = "round floats first, or cast with `i32(x)`";
      return Type::error();
    }
    return Type::tensor(x.axes, Elem{ElemKind::index, *of, false});
  }
  // Linear[D, 4](seed=0): an instance of a generic model, made.
  if (callee.kind == ExprKind::index && callee.items[0]->kind == ExprKind::name &&
      models_.count(callee.items[0]->text) && callee.kwargs.empty()) {
    std::vector<const Expr*> dims;
    for (std::size_t k = 1; k < callee.items.size(); ++k) dims.push_back(callee.items[k].get());
    return model_constructor(e, callee.items[0]->text, dims, args, spans, ctx);
  }
  if (callee.kind != ExprKind::name) {
    r_.error(Code::E0907, callee.span, "this can't be called", "not a function").help =
        "call a function by its name: `f(x)`";
    return Type::error();
  }
  const std::string& name = callee.text;
  if (auto it = fns_.find(name); it != fns_.end())
    return user_call(e, it->second, args, spans, ctx, !piped);
  if (models_.count(name)) return model_constructor(e, name, {}, args, spans, ctx);
  if (records_.count(name)) {
    r_.error(Code::E0907, callee.span, "`" + name + "` is a record type, not a function",
             "a record")
        .help = "records come from datasets: `data: Dataset[" + name + "] = load(\"...\")`";
    return Type::error();
  }
  if (!is_builtin(name)) {
    (void)name_expr(callee, ctx);  // reports the unknown name with a suggestion
    return Type::error();
  }
  return builtin_call(name, e, args, spans, ctx, expected);
}

Type Checker::builtin_call(const std::string& name, const Expr& e, std::vector<Type>& args,
                           std::vector<Span>& spans, FnCtx& ctx, const Type* expected) {
  BuiltinCall call{name, e, args, spans, ctx, expected};
  const auto rule = builtin_rules().find(name);
  if (rule == builtin_rules().end()) {  // builtin_names() is the table's: never here
    r_.error(Code::E0907, e.span, "`" + name + "` has no rule", "unknown");
    return Type::error();
  }
  return (this->*rule->second)(call);
}

std::optional<Type> Checker::tensor_arg(BuiltinCall& c, std::size_t i, const char* what) {
  Type t = as_tensor(c.args[i]);
  if (t.is_tensor()) return t;
  r_.error(Code::E0505, c.spans[i], "`" + c.name + "` needs " + what + ", not " + c.args[i].str(),
           "this is " + c.args[i].str())
      .help = c.args[i].is(Type::Kind::batch) ? "take one of the batch's fields: `batch.x`"
                                              : "pass a tensor";
  return std::nullopt;
}

std::optional<Type> Checker::float_arg(BuiltinCall& c, std::size_t i) {
  auto t = tensor_arg(c, i, "a tensor");
  if (!t) return std::nullopt;
  if (t->elem.weak && !t->elem.is_float()) t->elem = Elem{ElemKind::f32, {}, true};
  if (!t->elem.is_float()) {
    r_.error(Code::E0503, c.spans[i], "`" + c.name + "` needs floats, not " + t->elem.str(),
             "not floats")
        .help = "cast first: `f32(x)`";
    return std::nullopt;
  }
  return t;
}

bool Checker::count(BuiltinCall& c, std::size_t lo, std::size_t hi) {
  return arg_count(c.name, c.e, c.args.size(), lo, hi);
}

Type Checker::pattern_rule(BuiltinCall& c) {
  return pattern_call(c.name, c.e, c.args, c.spans, c.ctx);
}

Type Checker::window_rule(BuiltinCall& c) {
  return window_call(c.name, c.e, c.args, c.spans, c.ctx);
}

Type Checker::slices_rule(BuiltinCall& c) {
  return slices_call(c.e, c.args, c.spans, c.ctx);
}

Type Checker::program_rule(BuiltinCall& c) {
  return program_builtin(c.name, c.e, c.args, c.spans, c.ctx, c.expected);
}

}  // namespace ss::check
