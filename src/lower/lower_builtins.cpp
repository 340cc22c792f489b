// The built-ins a device function calls, each lowered by its rule, found by
// name in one table (builtin_rules) made from check/builtins.def's
// SS_DEVICE_BUILTIN rows and the functions of types/unary.def and
// binary.def. The controller's own built-ins (print, load, save...) lower
// in lower_host.cpp; builtin_lowering.hpp names both, and a test holds
// every name the checker accepts to one of them.
#include <algorithm>
#include <map>

#include "lower/builtin_lowering.hpp"
#include "lower/lowerer.hpp"
#include "types/binary_functions.hpp"

namespace ss::lower::detail {

const std::map<std::string, Lowerer::BuiltinRule>& Lowerer::builtin_rules() {
  static const std::map<std::string, BuiltinRule> rules = [] {
    std::map<std::string, BuiltinRule> m;
    for (const auto& f : types::unary_functions())
      if (f.spelled == types::Spelled::function) m[f.name] = &Lowerer::unary_function_rule;
    for (const auto& f : types::binary_functions())
      if (f.spelled == types::Spelled::function) m[f.written] = &Lowerer::binary_function_rule;
#define SS_DEVICE_BUILTIN(name, check_rule, lower_rule) m[name] = &Lowerer::lower_rule;
#define SS_HOST_BUILTIN(name, check_rule, host_rule)
#include "check/builtins.def"
#undef SS_DEVICE_BUILTIN
#undef SS_HOST_BUILTIN
    return m;
  }();
  return rules;
}

bool Lowerer::lowers(const std::string& name) {
  return builtin_rules().count(name) > 0;
}

Val Lowerer::builtin(const std::string& name, const Expr& e, Scope& scope) {
  const auto rule = builtin_rules().find(name);
  if (rule == builtin_rules().end())
    throw NotLowered("`" + name + "` isn't lowered to the IR yet", e.span);
  return (this->*rule->second)(name, e, scope);
}

int Lowerer::builtin_arg(const Expr& e, Scope& scope, std::size_t i, ElemKind kind) {
  return tensor(value(*e.items[i + 1], scope), kind, e.span);
}

std::vector<std::int64_t> Lowerer::builtin_axes(const Expr& e) const {
  std::vector<std::int64_t> out;
  for (const auto k : p_.axes.at(&e)) out.push_back(static_cast<std::int64_t>(k));
  return out;
}

namespace {

bool keep_of(const Expr& e) {  // `keep=True`
  for (const auto& kw : e.kwargs)
    if (kw.name == "keep") return kw.value->kind == ExprKind::boolean && kw.value->bool_value;
  return false;
}

}  // namespace

Val Lowerer::unary_function_rule(const std::string& name, const Expr& e, Scope& scope) {
  Node n = make(Op::unary, e, scope, {builtin_arg(e, scope, 0, type_of(e, scope).elem.kind)});
  n.sub = types::unary_function(name);  // types/unary.def's row
  return node(n);
}

Val Lowerer::cast_rule(const std::string&, const Expr& e, Scope& scope) {
  return node(make(Op::cast, e, scope, {builtin_arg(e, scope, 0, type_of(e, scope).elem.kind)}));
}

Val Lowerer::dropout_rule(const std::string&, const Expr& e, Scope& scope) {
  return dropout(e, scope);
}

Val Lowerer::matmul_rule(const std::string&, const Expr& e, Scope& scope) {
  return node(
      make(Op::matmul, e, scope,
           {builtin_arg(e, scope, 0, ElemKind::f32), builtin_arg(e, scope, 1, ElemKind::f32)}));
}

Val Lowerer::where_rule(const std::string&, const Expr& e, Scope& scope) {
  const ElemKind kind = type_of(e, scope).elem.kind;
  const Val c = value(*e.items[1], scope);
  return node(make(Op::where, e, scope,
                   {tensor(c, ElemKind::boolean, e.span), builtin_arg(e, scope, 1, kind),
                    builtin_arg(e, scope, 2, kind)}));
}

// types/binary.def's functions (maximum, minimum), their operands in the
// element type the checker gave both.
Val Lowerer::binary_function_rule(const std::string& name, const Expr& e, Scope& scope) {
  const int row = types::binary_function(name, types::Spelled::function);
  const ElemKind kind = types::yields_bool(types::binary_result(row))
                            ? type_of(*e.items[1], scope).elem.kind
                            : type_of(e, scope).elem.kind;
  Node n =
      make(Op::binary, e, scope, {builtin_arg(e, scope, 0, kind), builtin_arg(e, scope, 1, kind)});
  n.sub = row;
  return node(n);
}

Val Lowerer::clip_rule(const std::string&, const Expr& e, Scope& scope) {
  const ElemKind kind = type_of(e, scope).elem.kind;
  Node lo =
      make(Op::binary, e, scope, {builtin_arg(e, scope, 0, kind), builtin_arg(e, scope, 1, kind)});
  lo.sub = static_cast<int>(Binary::maximum);
  const Val low = node(lo);
  Node hi = make(Op::binary, e, scope, {low.node, builtin_arg(e, scope, 2, kind)});
  hi.sub = static_cast<int>(Binary::minimum);
  return node(hi);
}

Val Lowerer::reduction_rule(const std::string& name, const Expr& e, Scope& scope) {
  static const std::map<std::string, Reduce> reductions = {
      {"sum", Reduce::sum}, {"mean", Reduce::mean},           {"max", Reduce::max},
      {"min", Reduce::min}, {"logsumexp", Reduce::logsumexp}, {"var", Reduce::var},
      {"std", Reduce::std}};
  Node n = make(Op::reduce, e, scope, {builtin_arg(e, scope, 0, ElemKind::f32)});
  n.sub = static_cast<int>(reductions.at(name));
  n.axes = builtin_axes(e);
  n.keep = keep_of(e);
  if (n.axes.empty()) return value(*e.items[1], scope);  // over no axis: a scalar's identity
  return node(n);
}

// An operation along one axis (`over=`), the ops.def row its built-in is
// named after: argmax, softmax, sort, layer_norm...
Val Lowerer::along_axis_rule(const std::string& name, const Expr& e, Scope& scope) {
  const auto op = ir::op_named(name);
  if (!op) throw std::logic_error("check/builtins.def names `" + name + "`, no ops.def row");
  Node n = make(*op, e, scope, {builtin_arg(e, scope, 0, ElemKind::f32)});
  n.axes = builtin_axes(e);
  if (n.op == Op::argmax || n.op == Op::softmax || n.op == Op::log_softmax) n.keep = keep_of(e);
  if (n.op == Op::layer_norm || n.op == Op::rms_norm) {
    n.number = 1e-5;  // PyTorch's default
    for (const auto& kw : e.kwargs)
      if (kw.name == "eps") n.number = number(*kw.value, scope);
  }
  return node(n);
}

Val Lowerer::cross_entropy_rule(const std::string&, const Expr& e, Scope& scope) {
  Node n = make(Op::cross_entropy, e, scope,
                {builtin_arg(e, scope, 0, ElemKind::f32), builtin_arg(e, scope, 1, ElemKind::i32)});
  n.axes = builtin_axes(e);
  return node(n);
}

Val Lowerer::causal_rule(const std::string&, const Expr& e, Scope& scope) {
  return node(make(Op::causal, e, scope, {builtin_arg(e, scope, 0, ElemKind::f32)}));
}

Val Lowerer::fill_rule(const std::string& name, const Expr& e, Scope& scope) {
  Node n = make(Op::fill, e, scope, {});
  n.number = name == "ones" ? 1.0 : name == "full" ? value(*e.items[2], scope).number : 0.0;
  return node(n);
}

Val Lowerer::join_rule(const std::string& name, const Expr& e, Scope& scope) {
  const ElemKind kind = type_of(e, scope).elem.kind;
  std::vector<int> in;
  for (std::size_t i = 1; i < e.items.size(); ++i) in.push_back(builtin_arg(e, scope, i - 1, kind));
  Node n = make(name == "concat" ? Op::concat : Op::stack, e, scope, std::move(in));
  if (name == "concat") n.axes = builtin_axes(e);
  return node(n);
}

Val Lowerer::pad_rule(const std::string&, const Expr& e, Scope& scope) {
  Node n = make(Op::pad, e, scope, {builtin_arg(e, scope, 0, ElemKind::f32)});
  n.axes = builtin_axes(e);
  n.ints = {0, 0};
  for (const auto& kw : e.kwargs) {
    if (kw.name == "before") n.ints[0] = kw.value->int_value;
    if (kw.name == "after") n.ints[1] = kw.value->int_value;
    if (kw.name == "value") n.number = number(*kw.value, scope);
  }
  return node(n);
}

Val Lowerer::arange_rule(const std::string&, const Expr& e, Scope& scope) {
  return node(make(Op::arange, e, scope, {}));
}

Val Lowerer::random_rule(const std::string& name, const Expr& e, Scope& scope) {
  Node n = make(Op::random, e, scope, {});
  n.name = name;
  n.values = {0.0, 1.0};  // normal's mean and std; uniform's low and high
  n.ints = {0};
  for (const auto& kw : e.kwargs) {
    const double v = number(*kw.value, scope);
    if (kw.name == "mean" || kw.name == "low") n.values[0] = v;
    if (kw.name == "std" || kw.name == "high") n.values[1] = v;
    if (kw.name == "seed") n.ints[0] = static_cast<std::int64_t>(v);
  }
  return node(n);
}

Val Lowerer::pattern_rule(const std::string& name, const Expr& e, Scope& scope) {
  const auto& plan = p_.patterns.at(&e);
  std::vector<int> in;
  for (std::size_t t = 0; t < plan.inputs.size(); ++t)
    in.push_back(builtin_arg(e, scope, t, ElemKind::f32));
  Node n = make(name == "einsum" ? Op::einsum : Op::einops, e, scope, std::move(in));
  n.groups_in = plan.inputs;
  n.groups_out = plan.output;
  for (const auto& [k, axis] : plan.sizes) n.sizes[k] = substitute(axis, scope.subst);
  n.name = plan.op;
  return node(n);
}

// `slices(...)` lowers with its `for` loop (lower_scans.cpp), the one
// place the checker allows it (E1512 elsewhere): met here, it is our bug.
Val Lowerer::slices_rule(const std::string&, const Expr& e, Scope&) {
  throw NotLowered("`slices` lowers with its `for` loop, not as a value", e.span);
}

Val Lowerer::update_rule(const std::string&, const Expr& e, Scope& scope) {
  return update(e, scope);
}

Val Lowerer::norm_rule(const std::string&, const Expr& e, Scope& scope) {
  return node_val(global_norm(value(*e.items[1], scope), e.span));
}

// torch.nn.utils.clip_grad_norm_: scaled by max / (norm + 1e-6), at most 1.
Val Lowerer::clip_norm_rule(const std::string&, const Expr& e, Scope& scope) {
  const Val g = value(*e.items[1], scope);
  const int limit = tensor(value(*e.items[2], scope), ElemKind::f32, e.span);
  const int coef = elementwise(Binary::div, limit,
                               elementwise(Binary::add, global_norm(g, e.span),
                                           constant(1e-6, ElemKind::f32, e.span), e.span),
                               e.span);
  const int capped = elementwise(Binary::minimum, coef, constant(1, ElemKind::f32, e.span), e.span);
  Val scale;
  scale.kind = Val::Kind::tensor;
  scale.node = capped;
  return structure_arithmetic(Binary::mul, g, scale, e.span);
}

}  // namespace ss::lower::detail

namespace ss::lower {

bool lowers_on_device(const std::string& name) {
  return detail::Lowerer::lowers(name);
}

}  // namespace ss::lower
