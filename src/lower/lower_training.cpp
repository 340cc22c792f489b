#include "ir/attention.hpp"
#include "ir/autodiff.hpp"
#include "ir/optimizers.hpp"
#include "lower/lowerer.hpp"

namespace ss::lower::detail {

// dropout(x, rate=): the identity, except under value_and_grad/grad, where
// each element is zeroed with probability `rate` and the rest scaled by
// 1 / (1 - rate). The mask's randomness is keyed by the graph's `$seed`
// input, which the runner changes at every run, and the site's own stream.
Val Lowerer::dropout(const Expr& e, Scope& scope) {
  const Val x = value(*e.items[1], scope);
  if (!differentiating_) return x;
  double rate = 0.5;
  for (const auto& kw : e.kwargs)
    if (kw.name == "rate") rate = number(*kw.value, scope);
  if (rate <= 0) return x;
  const int xn = tensor(x, ElemKind::f32, e.span);
  const Type t = g_.nodes[static_cast<std::size_t>(xn)].type;
  if (seed_input_ < 0) {
    seed_input_ = g_.add(
        {.op = Op::input, .name = "$seed", .type = Type::scalar(ElemKind::i32), .span = e.span});
    g_.inputs.push_back(seed_input_);
  }
  Type uniform_type = t;
  uniform_type.elem = types::Elem{ElemKind::f32, {}, false};
  const int u = g_.add({.op = Op::random,
                        .in = {seed_input_},
                        .name = "uniform",
                        .ints = {0, ++dropout_sites_},
                        .values = {0.0, 1.0},
                        .type = uniform_type,
                        .span = e.span});
  Type mask_type = t;
  mask_type.elem = types::Elem{ElemKind::boolean, {}, false};
  const int keep = g_.add({.op = Op::binary,
                           .in = {u, constant(rate, ElemKind::f32, e.span)},
                           .sub = static_cast<int>(Binary::ge),
                           .type = mask_type,
                           .span = e.span});
  const int scaled =
      elementwise(Binary::mul, xn, constant(1.0 / (1.0 - rate), ElemKind::f32, e.span), e.span);
  return node_val(g_.add({.op = Op::where,
                          .in = {keep, scaled, constant(0, ElemKind::f32, e.span)},
                          .type = uniform_type,
                          .span = e.span}));
}

// value_and_grad(f, m, args...) and grad(...): f inlined, then its value
// differentiated with respect to every tensor of m.
Val Lowerer::differentiate(const std::string& name, const Expr& e, Scope& scope) {
  const auto& f = p_.functions.at(e.items[1]->text);
  Scope inner;
  for (const auto& [generic, axis] : p_.bindings.at(&e))
    inner.subst[generic] = substitute(axis, scope.subst);
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    const Expr& arg = *e.items[i + 2];
    inner.vars[f.item->params[i].name] =
        value(arg.kind == ExprKind::mut ? *arg.items[0] : arg, scope);
  }
  const Val model = inner.vars.at(f.item->params[0].name);
  ++differentiating_;
  const Val loss = body(f, inner);
  --differentiating_;
  const auto independent = [&] {
    return NotLowered(
        "`" + e.items[1]->text + "`'s value doesn't depend on the model's parameters", e.span,
        diag::Code::E1204,
        "differentiate a value computed from the model: a loss that uses its parameters");
  };
  if (loss.kind != Val::Kind::tensor) throw independent();
  std::vector<int> wrt;
  leaves(model, "", wrt, nullptr);
  std::vector<int> grads;
  fuse_attention(g_);  // before differentiating: its gradient is one node too
  try {
    grads = append_gradients(g_, loss.node, wrt, p_.dims);
  } catch (const NotDifferentiable& failure) {
    throw NotLowered(std::string(failure.what()) + " isn't supported yet", failure.span,
                     diag::Code::E1205);
  }
  bool any = false;
  for (std::size_t i = 0; i < grads.size(); ++i) {
    if (grads[i] >= 0) {
      any = true;
      continue;
    }
    // A parameter the value doesn't use: its gradient is zero.
    Node zero{
        .op = Op::fill, .type = g_.nodes[static_cast<std::size_t>(wrt[i])].type, .span = e.span};
    grads[i] = g_.add(std::move(zero));
  }
  if (!any) throw independent();
  std::size_t at = 0;
  const Val gradient = with_leaves(model, grads, at);
  if (name == "grad") return gradient;
  Val v;
  v.kind = Val::Kind::tuple;
  v.items = {loss, gradient};
  return v;
}

// update(mut m, mut opt, g): one optimiser step; m and opt rebound.
Val Lowerer::update(const Expr& e, Scope& scope) {
  const Expr& m_expr = *e.items[1]->items[0];
  const Expr& opt_expr = *e.items[2]->items[0];
  const Val m = value(m_expr, scope);
  Val opt = value(opt_expr, scope);
  const Val g = value(*e.items[3], scope);
  const OptimizerSpec* spec = optimizer_spec(opt.type);
  if (!spec) throw NotLowered("an optimiser of kind " + opt.type, e.span);
  OptimizerNodes nodes;
  for (const auto& [setting, fallback] : spec->settings)
    nodes.settings.push_back(opt.field(setting)->node);
  nodes.step = opt.field("step")->node;
  for (const auto& state : spec->state) {
    leaves(*opt.field(state), "", nodes.state.emplace_back(), nullptr);
  }
  std::vector<int> params, grads;
  leaves(m, "", params, nullptr);
  leaves(g, "", grads, nullptr);
  const auto updated = append_optimizer_step(g_, *spec, nodes, params, grads, e.span);
  std::size_t at = 0;
  changed(m_expr, with_leaves(m, updated, at), scope);
  for (std::size_t i = 0; i < opt.names.size(); ++i) {
    if (opt.names[i] == "step") opt.items[i].node = nodes.step;
    for (std::size_t k = 0; k < spec->state.size(); ++k)
      if (opt.names[i] == spec->state[k]) {
        std::size_t from = 0;
        opt.items[i] = with_leaves(opt.items[i], nodes.state[k], from);
      }
  }
  changed(opt_expr, opt, scope);
  return Val{};
}

// An elementwise node of two f32 tensors, taking the wider one's axes.
int Lowerer::elementwise(Binary op, int a, int b, diag::Span span) {
  const Type& ta = g_.nodes[static_cast<std::size_t>(a)].type;
  const Type& tb = g_.nodes[static_cast<std::size_t>(b)].type;
  Type t = ta.axes.size() >= tb.axes.size() ? ta : tb;
  t.elem = types::Elem{ElemKind::f32, {}, false};
  return g_.add(
      {.op = Op::binary, .in = {a, b}, .sub = static_cast<int>(op), .type = t, .span = span});
}

// The gradient's global norm: sqrt of every tensor's sum of squares.
int Lowerer::global_norm(const Val& g, diag::Span span) {
  std::vector<int> parts;
  leaves(g, "", parts, nullptr);
  int total = constant(0, ElemKind::f32, span);
  for (const int x : parts) {
    int squares = elementwise(Binary::mul, x, x, span);
    const Type t = g_.nodes[static_cast<std::size_t>(squares)].type;
    if (!t.axes.empty()) {
      std::vector<std::int64_t> axes;
      for (std::size_t k = 0; k < t.axes.size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
      squares = g_.add({.op = Op::reduce,
                        .in = {squares},
                        .sub = static_cast<int>(Reduce::sum),
                        .axes = axes,
                        .type = Type::scalar(ElemKind::f32),
                        .span = span});
    }
    total = elementwise(Binary::add, total, squares, span);
  }
  return g_.add({.op = Op::unary,
                 .in = {total},
                 .sub = static_cast<int>(Unary::sqrt),
                 .type = Type::scalar(ElemKind::f32),
                 .span = span});
}

// A structure combined elementwise, tensor by tensor, with another of the
// same shape or with a scalar: g1 + g2, g * 0.5.
Val Lowerer::structure_arithmetic(Binary op, const Val& l, const Val& r, diag::Span span) {
  const Val& shape = l.kind == Val::Kind::model ? l : r;
  std::vector<int> left, right, out;
  const auto operand = [&](const Val& v, std::vector<int>& nodes) {
    if (v.kind == Val::Kind::model) {
      leaves(v, "", nodes, nullptr);
      return;
    }
    const int scalar = tensor(v, ElemKind::f32, span);
    std::vector<int> all;
    leaves(shape, "", all, nullptr);
    nodes.assign(all.size(), scalar);
  };
  operand(l, left);
  operand(r, right);
  for (std::size_t i = 0; i < left.size(); ++i)
    out.push_back(elementwise(op, left[i], right[i], span));
  std::size_t at = 0;
  return with_leaves(shape, out, at);
}

}  // namespace ss::lower::detail
