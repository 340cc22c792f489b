#include <algorithm>
#include <map>

#include "lower/lowerer.hpp"
#include "types/unary_functions.hpp"

namespace ss::lower::detail {

Val Lowerer::builtin(const std::string& name, const Expr& e, Scope& scope) {
  static const std::map<std::string, Reduce> reductions = {
      {"sum", Reduce::sum}, {"mean", Reduce::mean},           {"max", Reduce::max},
      {"min", Reduce::min}, {"logsumexp", Reduce::logsumexp}, {"var", Reduce::var},
      {"std", Reduce::std}};
  const Type result = type_of(e, scope);
  const auto arg = [&](std::size_t i, ElemKind kind) {
    return tensor(value(*e.items[i + 1], scope), kind, e.span);
  };
  const auto keep = [&] {
    for (const auto& kw : e.kwargs)
      if (kw.name == "keep") return kw.value->kind == ExprKind::boolean && kw.value->bool_value;
    return false;
  };
  const auto positions = [&] {
    std::vector<std::int64_t> out;
    for (const auto k : p_.axes.at(&e)) out.push_back(static_cast<std::int64_t>(k));
    return out;
  };
  if (const int row = types::unary_function(name); row >= 0) {  // types/unary.def's
    Node n = make(Op::unary, e, scope, {arg(0, result.elem.kind)});
    n.sub = row;
    return node(n);
  }
  if (name == "f32" || name == "bf16" || name == "f16" || name == "i32")
    return node(make(Op::cast, e, scope, {arg(0, result.elem.kind)}));
  if (name == "dropout") return dropout(e, scope);
  if (name == "conv" || name == "max_pool" || name == "avg_pool") return window_op(name, e, scope);
  if (name == "matmul")
    return node(make(Op::matmul, e, scope, {arg(0, ElemKind::f32), arg(1, ElemKind::f32)}));
  if (name == "where") {
    const Val c = value(*e.items[1], scope);
    return node(make(Op::where, e, scope,
                     {tensor(c, ElemKind::boolean, e.span), arg(1, result.elem.kind),
                      arg(2, result.elem.kind)}));
  }
  if (name == "maximum" || name == "minimum") {
    Node n = make(Op::binary, e, scope, {arg(0, result.elem.kind), arg(1, result.elem.kind)});
    n.sub = static_cast<int>(name == "maximum" ? Binary::maximum : Binary::minimum);
    return node(n);
  }
  if (auto it = reductions.find(name); it != reductions.end()) {
    Node n = make(Op::reduce, e, scope, {arg(0, ElemKind::f32)});
    n.sub = static_cast<int>(it->second);
    n.axes = positions();
    n.keep = keep();
    if (n.axes.empty())
      return value(*e.items[1], scope);  // a reduction over no axis: a scalar's identity
    return node(n);
  }
  if (name == "argmax" || name == "softmax" || name == "log_softmax") {
    Node n = make(name == "argmax"    ? Op::argmax
                  : name == "softmax" ? Op::softmax
                                      : Op::log_softmax,
                  e, scope, {arg(0, ElemKind::f32)});
    n.axes = positions();
    n.keep = keep();
    return node(n);
  }
  if (name == "cross_entropy") {
    Node n = make(Op::cross_entropy, e, scope, {arg(0, ElemKind::f32), arg(1, ElemKind::i32)});
    n.axes = positions();
    return node(n);
  }
  if (name == "causal") return node(make(Op::causal, e, scope, {arg(0, ElemKind::f32)}));
  if (name == "zeros" || name == "ones" || name == "full") {
    Node n = make(Op::fill, e, scope, {});
    n.number = name == "ones" ? 1.0 : name == "full" ? value(*e.items[2], scope).number : 0.0;
    return node(n);
  }
  if (name == "clip") {
    Node lo = make(Op::binary, e, scope, {arg(0, result.elem.kind), arg(1, result.elem.kind)});
    lo.sub = static_cast<int>(Binary::maximum);
    const Val low = node(lo);
    Node hi = make(Op::binary, e, scope, {low.node, arg(2, result.elem.kind)});
    hi.sub = static_cast<int>(Binary::minimum);
    return node(hi);
  }
  if (name == "sort" || name == "argsort" || name == "layer_norm" || name == "rms_norm") {
    Node n = make(name == "sort"         ? Op::sort
                  : name == "argsort"    ? Op::argsort
                  : name == "layer_norm" ? Op::layer_norm
                                         : Op::rms_norm,
                  e, scope, {arg(0, ElemKind::f32)});
    n.axes = positions();
    if (n.op == Op::layer_norm || n.op == Op::rms_norm) {
      n.number = 1e-5;  // PyTorch's default
      for (const auto& kw : e.kwargs)
        if (kw.name == "eps") n.number = number(*kw.value, scope);
    }
    return node(n);
  }
  if (name == "concat" || name == "stack") {
    std::vector<int> in;
    for (std::size_t i = 1; i < e.items.size(); ++i) in.push_back(arg(i - 1, result.elem.kind));
    Node n = make(name == "concat" ? Op::concat : Op::stack, e, scope, std::move(in));
    if (name == "concat") n.axes = positions();
    return node(n);
  }
  if (name == "pad") {
    Node n = make(Op::pad, e, scope, {arg(0, ElemKind::f32)});
    n.axes = positions();
    n.ints = {0, 0};
    for (const auto& kw : e.kwargs) {
      if (kw.name == "before") n.ints[0] = kw.value->int_value;
      if (kw.name == "after") n.ints[1] = kw.value->int_value;
      if (kw.name == "value") n.number = number(*kw.value, scope);
    }
    return node(n);
  }
  if (name == "arange") return node(make(Op::arange, e, scope, {}));
  if (name == "normal" || name == "uniform") {
    Node n = make(Op::random, e, scope, {});
    n.name = name;
    n.values = name == "normal" ? std::vector<double>{0.0, 1.0} : std::vector<double>{0.0, 1.0};
    n.ints = {0};
    for (const auto& kw : e.kwargs) {
      const double v = number(*kw.value, scope);
      if (kw.name == "mean" || kw.name == "low") n.values[0] = v;
      if (kw.name == "std" || kw.name == "high") n.values[1] = v;
      if (kw.name == "seed") n.ints[0] = static_cast<std::int64_t>(v);
    }
    return node(n);
  }
  if (name == "rearrange" || name == "reduce" || name == "repeat" || name == "einsum") {
    const auto& plan = p_.patterns.at(&e);
    std::vector<int> in;
    for (std::size_t t = 0; t < plan.inputs.size(); ++t) in.push_back(arg(t, ElemKind::f32));
    Node n = make(name == "einsum" ? Op::einsum : Op::einops, e, scope, std::move(in));
    n.groups_in = plan.inputs;
    n.groups_out = plan.output;
    for (const auto& [k, axis] : plan.sizes) n.sizes[k] = substitute(axis, scope.subst);
    n.name = plan.op;
    return node(n);
  }
  if (name == "value_and_grad" || name == "grad") return differentiate(name, e, scope);
  if (name == "update") return update(e, scope);
  if (name == "norm") return node_val(global_norm(value(*e.items[1], scope), e.span));
  if (name == "clip_norm") {
    // torch.nn.utils.clip_grad_norm_: scaled by max / (norm + 1e-6), at most 1.
    const Val g = value(*e.items[1], scope);
    const int limit = tensor(value(*e.items[2], scope), ElemKind::f32, e.span);
    const int coef = elementwise(Binary::div, limit,
                                 elementwise(Binary::add, global_norm(g, e.span),
                                             constant(1e-6, ElemKind::f32, e.span), e.span),
                                 e.span);
    const int capped =
        elementwise(Binary::minimum, coef, constant(1, ElemKind::f32, e.span), e.span);
    Val scale;
    scale.kind = Val::Kind::tensor;
    scale.node = capped;
    return structure_arithmetic(Binary::mul, g, scale, e.span);
  }
  throw NotLowered("`" + name + "` isn't lowered to the IR yet", e.span);
}

}  // namespace ss::lower::detail
