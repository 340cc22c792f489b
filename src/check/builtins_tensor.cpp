// The tensor built-ins' rules: math, casts, reductions, softmax and norms
// along an axis, losses, joins and pads (builtin_table.cpp names them).
#include <algorithm>

#include "check/checker_impl.hpp"
#include "types/binary_functions.hpp"
#include "types/size_arith.hpp"

namespace ss::check {

// types/unary.def's functions: of floats, or of numbers keeping their type.
Type Checker::unary_function_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  const int row = types::unary_function(name);
  const bool floats = types::unary_functions()[static_cast<std::size_t>(row)].result ==
                      types::UnaryResult::float_type;
  check_kwargs(e, {}, name);
  if (!count(c, 1, 1)) return Type::error();
  auto x = floats ? float_arg(c, 0) : tensor_arg(c, 0, "a number tensor");
  if (!x) return Type::error();
  if (x->elem.kind == ElemKind::boolean || x->elem.kind == ElemKind::index) {
    r_.error(Code::E0503, c.spans[0], "`" + name + "` needs numbers, not " + x->elem.str(),
             "not numbers")
        .help = "cast first: `f32(x)`";
    return Type::error();
  }
  return *x;
}

// f32(x), bf16(x), f16(x), i32(x).
Type Checker::cast_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  check_kwargs(e, {}, name);
  if (!count(c, 1, 1)) return Type::error();
  auto x = tensor_arg(c, 0, "a tensor");
  if (!x) return Type::error();
  const ElemKind kind = name == "f32"    ? ElemKind::f32
                        : name == "bf16" ? ElemKind::bf16
                        : name == "f16"  ? ElemKind::f16
                                         : ElemKind::i32;
  return Type::tensor(x->axes, Elem{kind, {}, false});
}

// dropout(x, rate=R).
Type Checker::dropout_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  check_kwargs(e, {"rate"}, name);
  if (!count(c, 1, 1)) return Type::error();
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
  auto x = float_arg(c, 0);
  return x ? *x : Type::error();
}

// where(c, a, b), and binary.def's functions of two (maximum(a, b)):
// broadcast, one element type.
Type Checker::elementwise_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  check_kwargs(e, {}, name);
  const bool w = name == "where";
  if (!count(c, w ? 3 : 2, w ? 3 : 2)) return Type::error();
  std::vector<Type> ts;
  for (std::size_t i = 0; i < c.args.size(); ++i) {
    auto t = tensor_arg(c, i, "a tensor");
    if (!t) return Type::error();
    ts.push_back(*t);
  }
  if (w && ts[0].elem.kind != ElemKind::boolean) {
    r_.error(Code::E0504, c.spans[0], "`where`'s condition must be bool, not " + ts[0].elem.str(),
             "not a bool")
        .help = "compare to make one: `where(x > 0, x, 0.0)`";
    return Type::error();
  }
  const std::size_t a = w ? 1 : 0;
  auto axes =
      broadcast(ts[a].axes, ts[a + 1].axes, e.span, c.spans[a], c.spans[a + 1], name.c_str());
  if (!axes) return Type::error();
  if (w) {
    axes = broadcast(ts[0].axes, *axes, e.span, c.spans[0], c.spans[1], name.c_str());
    if (!axes) return Type::error();
  }
  auto elem = unify_elems(ts[a].elem, ts[a + 1].elem, e.span, name);
  if (!elem) return Type::error();
  Type out = Type::tensor(std::move(*axes), *elem);
  note_axes(out, e.span, c.ctx);
  return out;
}

// types/binary.def's functions (maximum, minimum): broadcast, the
// operands' element type, or the row's result type.
Type Checker::binary_function_call(BuiltinCall& c) {
  Type out = elementwise_call(c);
  if (out.kind != Type::Kind::tensor) return out;
  switch (types::binary_result(types::binary_function(c.name, types::Spelled::function))) {
    case types::BinaryResult::same_type:
      break;
    case types::BinaryResult::float_type:
      if (out.elem.kind == ElemKind::i32 || out.elem.kind == ElemKind::index)
        out.elem = Elem{ElemKind::f32, {}, false};
      break;
    case types::BinaryResult::comparison:
    case types::BinaryResult::logic:
      out.elem = Elem{ElemKind::boolean, {}, false};
      break;
  }
  return out;
}

// clip(x, lo, hi).
Type Checker::clip_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  check_kwargs(e, {}, name);
  if (!count(c, 3, 3)) return Type::error();
  auto x = tensor_arg(c, 0, "a tensor");
  if (!x) return Type::error();
  for (std::size_t i = 1; i < 3; ++i) {
    auto b = tensor_arg(c, i, "a bound");
    if (!b) return Type::error();
    if (!broadcast(x->axes, b->axes, e.span, c.spans[0], c.spans[i], "clip")) return Type::error();
  }
  return *x;
}

// sum mean max min argmax logsumexp var std, over=... keep=...
Type Checker::reduction_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  check_kwargs(e, {"over", "keep"}, name);
  if (!count(c, 1, 1)) return Type::error();
  auto x = tensor_arg(c, 0, "a tensor");
  if (!x) return Type::error();
  const auto* over = kwarg(e, "over");
  auto at = over_axes(over ? over->value.get() : nullptr, *x, e.span, c.ctx, name == "argmax");
  if (!at) return Type::error();
  typed_.axes[&e] = *at;
  const bool keep = kwarg(e, "keep") && kwarg(e, "keep")->value->kind == ExprKind::boolean &&
                    kwarg(e, "keep")->value->bool_value;
  const bool has_lowering = name == "sum" || name == "mean";
  for (std::size_t k : *at)
    if (!has_lowering) no_lowering(c.ctx, x->axes[k], over ? over->value->span : e.span, name);
  Elem elem = x->elem;
  if (name == "argmax") {
    elem = Elem{ElemKind::index, x->axes[(*at)[0]], false};
  } else if (name == "mean" || name == "var" || name == "std" || name == "logsumexp" ||
             (name == "sum" && elem.kind == ElemKind::boolean)) {
    if ((name == "logsumexp" || name == "var" || name == "std") && !elem.is_float() && !elem.weak) {
      r_.error(Code::E0503, c.spans[0], "`" + name + "` needs floats, not " + elem.str(),
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

// Along one axis: softmax log_softmax sort argsort layer_norm rms_norm.
Type Checker::along_axis_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  const bool norm = name == "layer_norm" || name == "rms_norm";
  if (norm)
    check_kwargs(e, {"over", "eps"}, name);
  else
    check_kwargs(e, {"over"}, name);
  if (!count(c, 1, 1)) return Type::error();
  if (const auto* eps = norm ? kwarg(e, "eps") : nullptr) {
    const Type t = expr(*eps->value, c.ctx);
    const bool literal =
        eps->value->kind == ExprKind::floating || eps->value->kind == ExprKind::integer;
    if (!t.is_error() && (!literal || eps->value->float_value <= 0)) {
      r_.error(Code::E0912, eps->value->span, "`eps=` takes a positive number, written out",
               literal ? "not positive" : "not a literal")
          .help = "write `" + name + "(x, over=D, eps=1e-6)`; the default is 1e-5";
      return Type::error();
    }
  }
  auto x = (name == "sort" || name == "argsort") ? tensor_arg(c, 0, "a tensor") : float_arg(c, 0);
  if (!x) return Type::error();
  const auto* over = kwarg(e, "over");
  auto at = over_axes(over ? over->value.get() : nullptr, *x, e.span, c.ctx, true);
  if (!at) return Type::error();
  typed_.axes[&e] = *at;
  no_lowering(c.ctx, x->axes[(*at)[0]], over->value->span, name);
  if (name == "argsort")
    return Type::tensor(x->axes, Elem{ElemKind::index, x->axes[(*at)[0]], false});
  return *x;
}

// cross_entropy(logits, labels, over=C).
Type Checker::cross_entropy_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  check_kwargs(e, {"over"}, name);
  if (!count(c, 2, 2)) return Type::error();
  auto logits = float_arg(c, 0);
  auto labels = tensor_arg(c, 1, "labels");
  if (!logits || !labels) return Type::error();
  const auto* over = kwarg(e, "over");
  auto at = over_axes(over ? over->value.get() : nullptr, *logits, e.span, c.ctx, true);
  if (!at) return Type::error();
  typed_.axes[&e] = *at;
  const Axis& classes = logits->axes[(*at)[0]];
  if (labels->elem.kind != ElemKind::index || !labels->elem.index_of ||
      !axes_match(*labels->elem.index_of, classes)) {
    r_.error(Code::E0718, c.spans[1],
             "labels must be Index[" + classes.str() + "], not " + labels->elem.str(), "labels")
        .help = "declare the label field `[] Index[" + classes.str() + "]`, or cast: `Index[" +
                classes.str() + "](y)`";
    return Type::error();
  }
  std::vector<Axis> rest = logits->axes;
  rest.erase(rest.begin() + static_cast<std::ptrdiff_t>((*at)[0]));
  bool same = rest.size() == labels->axes.size();
  for (std::size_t i = 0; same && i < rest.size(); ++i) same = axes_match(rest[i], labels->axes[i]);
  if (!same) {
    r_.error(Code::E0717, c.spans[1],
             "labels are " + axes_str(labels->axes) + "; the logits without " + classes.str() +
                 " are " + axes_str(rest),
             "shape " + axes_str(labels->axes))
        .help = "one label for each row of logits";
    return Type::error();
  }
  return Type::scalar();
}

// causal(scores): the last two axes, a square.
Type Checker::causal_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  check_kwargs(e, {}, name);
  if (!count(c, 1, 1)) return Type::error();
  auto x = float_arg(c, 0);
  if (!x) return Type::error();
  if (x->axes.size() < 2 || !axes_match(x->axes[x->axes.size() - 1], x->axes[x->axes.size() - 2])) {
    r_.error(Code::E0715, c.spans[0],
             "`causal` masks a square in the last two axes; this is " + x->str(), "not square")
        .help = "apply it to scores such as [b t t]";
    return Type::error();
  }
  no_lowering(c.ctx, x->axes.back(), e.span, "causal");
  no_lowering(c.ctx, x->axes[x->axes.size() - 2], e.span, "causal");
  return *x;
}

// matmul(a, b), as a @ b.
Type Checker::matmul_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  check_kwargs(e, {}, name);
  if (!count(c, 2, 2)) return Type::error();
  return matmul(e.span, c.args[0], c.args[1], c.spans[0], c.spans[1], c.ctx);
}

// concat(a, b, ..., over=T) and stack(a, b, ...).
Type Checker::join_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  check_kwargs(e,
               name == "concat" ? std::initializer_list<const char*>{"over"}
                                : std::initializer_list<const char*>{},
               name);
  if (c.args.size() < 2) {
    r_.error(Code::E0901, e.span, "`" + name + "` joins two or more tensors", "too few").help =
        "pass the tensors: `" + name + "(a, b" + (name == "concat" ? ", over=T)`" : ")`");
    return Type::error();
  }
  std::vector<Type> ts;
  for (std::size_t i = 0; i < c.args.size(); ++i) {
    auto t = tensor_arg(c, i, "a tensor");
    if (!t) return Type::error();
    ts.push_back(*t);
  }
  std::optional<std::size_t> along;
  if (name == "concat") {
    const auto* over = kwarg(e, "over");
    auto at = over_axes(over ? over->value.get() : nullptr, ts[0], e.span, c.ctx, true);
    if (!at) return Type::error();
    typed_.axes[&e] = *at;
    along = (*at)[0];
    no_lowering(c.ctx, ts[0].axes[*along], over->value->span, "concat");
  }
  std::int64_t total = 0;
  bool known = true;
  for (std::size_t i = 1; i < ts.size(); ++i) {
    bool same = ts[i].axes.size() == ts[0].axes.size();
    for (std::size_t k = 0; same && k < ts[0].axes.size(); ++k)
      same = (along && k == *along) || axes_match(ts[i].axes[k], ts[0].axes[k]);
    if (!same || !(ts[i].elem == ts[0].elem || ts[i].elem.weak)) {
      auto& d = r_.error(Code::E0719, c.spans[i],
                         "`" + name + "` joins " + ts[0].str() + " with " + ts[i].str(),
                         "different shape");
      r_.secondary(d, c.spans[0], "the first is " + ts[0].str());
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

// pad(x, over=T, before=, after=, value=).
Type Checker::pad_call(BuiltinCall& c) {
  const std::string& name = c.name;
  const Expr& e = c.e;
  check_kwargs(e, {"over", "before", "after", "value"}, name);
  if (!count(c, 1, 1)) return Type::error();
  auto x = tensor_arg(c, 0, "a tensor");
  if (!x) return Type::error();
  const auto* over = kwarg(e, "over");
  auto at = over_axes(over ? over->value.get() : nullptr, *x, e.span, c.ctx, true);
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
  no_lowering(c.ctx, x->axes[(*at)[0]], over->value->span, "pad");
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
}  // namespace ss::check
