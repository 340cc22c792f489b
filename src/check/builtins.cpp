// Calls: dispatch to the program's functions, model constructors and the
// built-ins; here the tensor built-ins (math, reductions, softmax, losses).
#include <algorithm>

#include "check/checker_impl.hpp"
#include "types/size_arith.hpp"
#include "types/unary_functions.hpp"

namespace ss::check {

const std::set<std::string>& builtin_names() {
  static const std::set<std::string> names = {
      // math (besides types/unary.def's functions) and casts
      "f32", "bf16", "f16", "i32", "where", "maximum", "minimum", "clip", "dropout",
      // reductions and along-axis operations
      "sum", "mean", "max", "min", "argmax", "logsumexp", "var", "std", "softmax", "log_softmax",
      "sort", "argsort", "layer_norm", "rms_norm", "cross_entropy", "causal", "concat", "stack",
      "pad", "matmul", "conv", "max_pool", "avg_pool", "slices",
      // patterns
      "einsum", "rearrange", "reduce", "repeat",
      // constructors
      "zeros", "ones", "full", "arange", "normal", "uniform",
      // the program's world
      "shape", "len", "range", "print", "write", "save", "load", "value_and_grad", "grad", "update",
      "clip_norm", "norm", "SGD", "Adam", "AdamW", "shuffle", "batches", "take", "whole", "map",
      "split"};
  static const std::set<std::string> all = [] {
    std::set<std::string> out = names;
    for (const auto& f : types::unary_functions())
      if (f.spelled == types::Spelled::function) out.insert(f.name);
    return out;
  }();
  return all;
}

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
  const auto count = [&](std::size_t lo, std::size_t hi) {
    return arg_count(name, e, args.size(), lo, hi);
  };
  const auto tensor_arg = [&](std::size_t i, const char* what) -> std::optional<Type> {
    Type t = as_tensor(args[i]);
    if (t.is_tensor()) return t;
    r_.error(Code::E0505, spans[i], "`" + name + "` needs " + what + ", not " + args[i].str(),
             "this is " + args[i].str())
        .help = args[i].is(Type::Kind::batch) ? "take one of the batch's fields: `batch.x`"
                                              : "pass a tensor";
    return std::nullopt;
  };
  const auto float_arg = [&](std::size_t i) -> std::optional<Type> {
    auto t = tensor_arg(i, "a tensor");
    if (!t) return std::nullopt;
    if (t->elem.weak && !t->elem.is_float()) t->elem = Elem{ElemKind::f32, {}, true};
    if (!t->elem.is_float()) {
      r_.error(Code::E0503, spans[i], "`" + name + "` needs floats, not " + t->elem.str(),
               "not floats")
          .help = "cast first: `f32(x)`";
      return std::nullopt;
    }
    return t;
  };

  // types/unary.def's functions: of floats, or of numbers keeping their type.
  if (const int row = types::unary_function(name); row >= 0) {
    const bool floats = types::unary_functions()[static_cast<std::size_t>(row)].result ==
                        types::UnaryResult::float_type;
    check_kwargs(e, {}, name);
    if (!count(1, 1)) return Type::error();
    auto x = floats ? float_arg(0) : tensor_arg(0, "a number tensor");
    if (!x) return Type::error();
    if (x->elem.kind == ElemKind::boolean || x->elem.kind == ElemKind::index) {
      r_.error(Code::E0503, spans[0], "`" + name + "` needs numbers, not " + x->elem.str(),
               "not numbers")
          .help = "cast first: `f32(x)`";
      return Type::error();
    }
    return *x;
  }
  if (name == "f32" || name == "bf16" || name == "f16" || name == "i32") {
    check_kwargs(e, {}, name);
    if (!count(1, 1)) return Type::error();
    auto x = tensor_arg(0, "a tensor");
    if (!x) return Type::error();
    const ElemKind kind = name == "f32"    ? ElemKind::f32
                          : name == "bf16" ? ElemKind::bf16
                          : name == "f16"  ? ElemKind::f16
                                           : ElemKind::i32;
    return Type::tensor(x->axes, Elem{kind, {}, false});
  }
  if (name == "dropout") {
    check_kwargs(e, {"rate"}, name);
    if (!count(1, 1)) return Type::error();
    const auto* rate = kwarg(e, "rate");
    if (!rate) {
      r_.error(Code::E0903, e.span, "`dropout` needs `rate=`", "no rate").help =
          "write `dropout(x, rate=0.1)`";
      return Type::error();
    }
    if ((rate->value->kind == ExprKind::floating || rate->value->kind == ExprKind::integer) &&
        (rate->value->float_value < 0 || rate->value->float_value >= 1))
      r_.error(Code::E0912, rate->value->span, "`rate=` must lie in [0, 1)", "out of range").help =
          "the share of values dropped: `rate=0.1`";
    auto x = float_arg(0);
    return x ? *x : Type::error();
  }
  if (name == "where" || name == "maximum" || name == "minimum") {
    check_kwargs(e, {}, name);
    const bool w = name == "where";
    if (!count(w ? 3 : 2, w ? 3 : 2)) return Type::error();
    std::vector<Type> ts;
    for (std::size_t i = 0; i < args.size(); ++i) {
      auto t = tensor_arg(i, "a tensor");
      if (!t) return Type::error();
      ts.push_back(*t);
    }
    if (w && ts[0].elem.kind != ElemKind::boolean) {
      r_.error(Code::E0504, spans[0], "`where`'s condition must be bool, not " + ts[0].elem.str(),
               "not a bool")
          .help = "compare to make one: `where(x > 0, x, 0.0)`";
      return Type::error();
    }
    const std::size_t a = w ? 1 : 0;
    auto axes = broadcast(ts[a].axes, ts[a + 1].axes, e.span, spans[a], spans[a + 1], name.c_str());
    if (!axes) return Type::error();
    if (w) {
      axes = broadcast(ts[0].axes, *axes, e.span, spans[0], spans[1], name.c_str());
      if (!axes) return Type::error();
    }
    auto elem = unify_elems(ts[a].elem, ts[a + 1].elem, e.span, name);
    if (!elem) return Type::error();
    Type out = Type::tensor(std::move(*axes), *elem);
    note_axes(out, e.span, ctx);
    return out;
  }
  if (name == "clip") {
    check_kwargs(e, {}, name);
    if (!count(3, 3)) return Type::error();
    auto x = tensor_arg(0, "a tensor");
    if (!x) return Type::error();
    for (std::size_t i = 1; i < 3; ++i) {
      auto b = tensor_arg(i, "a bound");
      if (!b) return Type::error();
      if (!broadcast(x->axes, b->axes, e.span, spans[0], spans[i], "clip")) return Type::error();
    }
    return *x;
  }

  // Reductions: sum mean max min argmax logsumexp var std
  if (name == "sum" || name == "mean" || name == "max" || name == "min" || name == "argmax" ||
      name == "logsumexp" || name == "var" || name == "std") {
    check_kwargs(e, {"over", "keep"}, name);
    if (!count(1, 1)) return Type::error();
    auto x = tensor_arg(0, "a tensor");
    if (!x) return Type::error();
    const auto* over = kwarg(e, "over");
    auto at = over_axes(over ? over->value.get() : nullptr, *x, e.span, ctx, name == "argmax");
    if (!at) return Type::error();
    typed_.axes[&e] = *at;
    const bool keep = kwarg(e, "keep") && kwarg(e, "keep")->value->kind == ExprKind::boolean &&
                      kwarg(e, "keep")->value->bool_value;
    const bool has_lowering = name == "sum" || name == "mean";
    for (std::size_t k : *at)
      if (!has_lowering) no_lowering(ctx, x->axes[k], over ? over->value->span : e.span, name);
    Elem elem = x->elem;
    if (name == "argmax") {
      elem = Elem{ElemKind::index, x->axes[(*at)[0]], false};
    } else if (name == "mean" || name == "var" || name == "std" || name == "logsumexp" ||
               (name == "sum" && elem.kind == ElemKind::boolean)) {
      if ((name == "logsumexp" || name == "var" || name == "std") && !elem.is_float() &&
          !elem.weak) {
        r_.error(Code::E0503, spans[0], "`" + name + "` needs floats, not " + elem.str(),
                 "not floats")
            .help = "cast first: `f32(x)`";
        return Type::error();
      }
      if (!elem.is_float()) elem = Elem{ElemKind::f32, {}, false};
    } else if (elem.kind == ElemKind::index) {
      elem = Elem{ElemKind::i32, {}, false};
    }
    std::vector<Axis> axes;
    for (std::size_t i = 0; i < x->axes.size(); ++i) {
      if (std::find(at->begin(), at->end(), i) == at->end())
        axes.push_back(x->axes[i]);
      else if (keep)
        axes.push_back(Axis::literal(1));
    }
    return Type::tensor(std::move(axes), elem);
  }
  // Along one axis: softmax log_softmax sort argsort layer_norm rms_norm
  if (name == "softmax" || name == "log_softmax" || name == "sort" || name == "argsort" ||
      name == "layer_norm" || name == "rms_norm") {
    const bool norm = name == "layer_norm" || name == "rms_norm";
    if (norm)
      check_kwargs(e, {"over", "eps"}, name);
    else
      check_kwargs(e, {"over"}, name);
    if (!count(1, 1)) return Type::error();
    if (const auto* eps = norm ? kwarg(e, "eps") : nullptr) {
      const Type t = expr(*eps->value, ctx);
      const bool literal =
          eps->value->kind == ExprKind::floating || eps->value->kind == ExprKind::integer;
      if (!t.is_error() && (!literal || eps->value->float_value <= 0)) {
        r_.error(Code::E0912, eps->value->span, "`eps=` takes a positive number, written out",
                 literal ? "not positive" : "not a literal")
            .help = "write `" + name + "(x, over=D, eps=1e-6)`; the default is 1e-5";
        return Type::error();
      }
    }
    auto x = (name == "sort" || name == "argsort") ? tensor_arg(0, "a tensor") : float_arg(0);
    if (!x) return Type::error();
    const auto* over = kwarg(e, "over");
    auto at = over_axes(over ? over->value.get() : nullptr, *x, e.span, ctx, true);
    if (!at) return Type::error();
    typed_.axes[&e] = *at;
    no_lowering(ctx, x->axes[(*at)[0]], over->value->span, name);
    if (name == "argsort")
      return Type::tensor(x->axes, Elem{ElemKind::index, x->axes[(*at)[0]], false});
    return *x;
  }
  if (name == "cross_entropy") {
    check_kwargs(e, {"over"}, name);
    if (!count(2, 2)) return Type::error();
    auto logits = float_arg(0);
    auto labels = tensor_arg(1, "labels");
    if (!logits || !labels) return Type::error();
    const auto* over = kwarg(e, "over");
    auto at = over_axes(over ? over->value.get() : nullptr, *logits, e.span, ctx, true);
    if (!at) return Type::error();
    typed_.axes[&e] = *at;
    const Axis& classes = logits->axes[(*at)[0]];
    if (labels->elem.kind != ElemKind::index || !labels->elem.index_of ||
        !axes_match(*labels->elem.index_of, classes)) {
      r_.error(Code::E0718, spans[1],
               "labels must be Index[" + classes.str() + "], not " + labels->elem.str(), "labels")
          .help = "declare the label field `[] Index[" + classes.str() + "]`, or cast: `Index[" +
                  classes.str() + "](y)`";
      return Type::error();
    }
    std::vector<Axis> rest = logits->axes;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>((*at)[0]));
    bool same = rest.size() == labels->axes.size();
    for (std::size_t i = 0; same && i < rest.size(); ++i)
      same = axes_match(rest[i], labels->axes[i]);
    if (!same) {
      r_.error(Code::E0717, spans[1],
               "labels are " + axes_str(labels->axes) + "; the logits without " + classes.str() +
                   " are " + axes_str(rest),
               "shape " + axes_str(labels->axes))
          .help = "one label for each row of logits";
      return Type::error();
    }
    return Type::scalar();
  }
  if (name == "causal") {
    check_kwargs(e, {}, name);
    if (!count(1, 1)) return Type::error();
    auto x = float_arg(0);
    if (!x) return Type::error();
    if (x->axes.size() < 2 ||
        !axes_match(x->axes[x->axes.size() - 1], x->axes[x->axes.size() - 2])) {
      r_.error(Code::E0715, spans[0],
               "`causal` masks a square in the last two axes; this is " + x->str(), "not square")
          .help = "apply it to scores such as [b t t]";
      return Type::error();
    }
    no_lowering(ctx, x->axes.back(), e.span, "causal");
    no_lowering(ctx, x->axes[x->axes.size() - 2], e.span, "causal");
    return *x;
  }
  if (name == "matmul") {
    check_kwargs(e, {}, name);
    if (!count(2, 2)) return Type::error();
    return matmul(e.span, args[0], args[1], spans[0], spans[1], ctx);
  }
  if (name == "concat" || name == "stack") {
    check_kwargs(e,
                 name == "concat" ? std::initializer_list<const char*>{"over"}
                                  : std::initializer_list<const char*>{},
                 name);
    if (args.size() < 2) {
      r_.error(Code::E0901, e.span, "`" + name + "` joins two or more tensors", "too few").help =
          "pass the tensors: `" + name + "(a, b" + (name == "concat" ? ", over=T)`" : ")`");
      return Type::error();
    }
    std::vector<Type> ts;
    for (std::size_t i = 0; i < args.size(); ++i) {
      auto t = tensor_arg(i, "a tensor");
      if (!t) return Type::error();
      ts.push_back(*t);
    }
    std::optional<std::size_t> along;
    if (name == "concat") {
      const auto* over = kwarg(e, "over");
      auto at = over_axes(over ? over->value.get() : nullptr, ts[0], e.span, ctx, true);
      if (!at) return Type::error();
      typed_.axes[&e] = *at;
      along = (*at)[0];
      no_lowering(ctx, ts[0].axes[*along], over->value->span, "concat");
    }
    std::int64_t total = 0;
    bool known = true;
    for (std::size_t i = 1; i < ts.size(); ++i) {
      bool same = ts[i].axes.size() == ts[0].axes.size();
      for (std::size_t k = 0; same && k < ts[0].axes.size(); ++k)
        same = (along && k == *along) || axes_match(ts[i].axes[k], ts[0].axes[k]);
      if (!same || !(ts[i].elem == ts[0].elem || ts[i].elem.weak)) {
        auto& d = r_.error(Code::E0719, spans[i],
                           "`" + name + "` joins " + ts[0].str() + " with " + ts[i].str(),
                           "different shape");
        r_.secondary(d, spans[0], "the first is " + ts[0].str());
        d.help = name == "concat" ? "all axes but the joined one must agree"
                                  : "stacked tensors have one shape";
        return Type::error();
      }
    }
    Type out = ts[0];
    if (name == "stack") {
      out.axes.insert(out.axes.begin(), Axis::literal(static_cast<std::int64_t>(ts.size())));
      return out;
    }
    for (const auto& t : ts) {
      const auto size = static_size(t.axes[*along]);
      if (size)
        total += *size;
      else
        known = false;
    }
    out.axes[*along] = known ? Axis::literal(total) : Axis::opaque(ts[0].axes[*along].str() + "+");
    return out;
  }
  if (name == "pad") {
    check_kwargs(e, {"over", "before", "after", "value"}, name);
    if (!count(1, 1)) return Type::error();
    auto x = tensor_arg(0, "a tensor");
    if (!x) return Type::error();
    const auto* over = kwarg(e, "over");
    auto at = over_axes(over ? over->value.get() : nullptr, *x, e.span, ctx, true);
    if (!at) return Type::error();
    typed_.axes[&e] = *at;
    std::optional<std::int64_t> added = 0;
    for (const char* side : {"before", "after"}) {
      const auto* kw = kwarg(e, side);
      if (!kw) continue;
      if (kw->value->kind != ExprKind::integer || kw->value->int_value < 0) {
        r_.error(Code::E0912, kw->value->span,
                 std::string("`") + side + "=` takes a count of 0 or more", "not a count")
            .help = "write `pad(x, over=T, before=1, after=2)`";
        return Type::error();
      }
      added = added ? types::add_sizes(*added, kw->value->int_value) : added;
    }
    no_lowering(ctx, x->axes[(*at)[0]], over->value->span, "pad");
    Type out = *x;
    const Axis& axis = out.axes[(*at)[0]];
    const auto size = static_size(axis);
    const auto padded = size && added ? types::add_sizes(*size, *added) : std::nullopt;
    if (!added || (size && !padded)) {
      report_overflow("pad(" + axis.str() + ")", "its size and the padding", e.span);
      return Type::error();
    }
    out.axes[(*at)[0]] = *added == 0 ? axis
                         : padded    ? Axis::literal(*padded)
                                     : Axis::opaque(axis.str() + "+" + std::to_string(*added));
    return out;
  }
  if (name == "einsum" || name == "rearrange" || name == "reduce" || name == "repeat")
    return pattern_call(name, e, args, spans, ctx);
  if (name == "conv" || name == "max_pool" || name == "avg_pool")
    return window_call(name, e, args, spans, ctx);
  if (name == "slices") return slices_call(e, args, spans, ctx);
  return program_builtin(name, e, args, spans, ctx, expected);
}

}  // namespace ss::check
