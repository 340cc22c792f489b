// Reverse-mode differentiation: walk the graph backwards from the output,
// and for each node on a path from the parameters apply its operation's
// rule (`Rules::apply`, one case per operation), adding each input's share
// of the gradient into that input's adjoint.
#include "ir/autodiff.hpp"

#include "ir/autodiff_rules.hpp"

namespace ss::ir::gradient {

void Rules::accumulate(int x, int contribution) {
  int& a = adjoint[static_cast<std::size_t>(x)];
  a = a < 0 ? contribution : binary(Binary::add, a, contribution, type(x));
}

std::vector<int> Rules::apply(int i, int gy) {
  const Node n = node(i);  // a copy: adding nodes moves the vector
  span_ = n.span;
  const int x = n.in.empty() ? -1 : n.in[0];
  // ops.def's `gradient` column: kStops lets nothing through, kFirst ops
  // are made here and have no gradient of their own; kFlows ops have a
  // rule below (a new one without is the error after the switch).
  switch (op_info(n.op).gradient) {
    case OpInfo::kStops:
      return {};
    case OpInfo::kFirst:
      throw NotDifferentiable("a gradient of a gradient", span_);
    case OpInfo::kFlows:
      break;
  }
  switch (n.op) {
    case Op::all_reduce:  // a replicated result: each part's gradient is the result's
      return {gy};
    case Op::unary:
      return {unary_rule(static_cast<Unary>(n.sub), x, i, gy)};
    case Op::binary:
      return binary_rule(static_cast<Binary>(n.sub), n, i, gy);
    case Op::where:
      return {-1, unbroadcast(where(n.in[0], gy, zero(i), type(i)), i, n.in[1]),
              unbroadcast(where(n.in[0], zero(i), gy, type(i)), i, n.in[2])};
    case Op::cast: {
      if (!is_float(type(x))) return {};
      Node c{.op = Op::cast, .in = {gy}, .type = float_type(type(x).axes)};
      return {add(c)};
    }
    case Op::matmul:
      return matmul_rule(n, gy);
    case Op::reduce:
      return {reduce_rule(n, i, gy)};
    case Op::softmax: {  // y (g - sum(g y))
      const int s = reduce(Reduce::sum, mul(gy, i), n.axes, true);
      return {mul(i, binary(Binary::sub, gy, s, type(i)))};
    }
    case Op::log_softmax: {  // g - exp(y) sum(g)
      const int s = reduce(Reduce::sum, gy, n.axes, true);
      return {binary(Binary::sub, gy, mul(unary(Unary::exp, i), s), type(i))};
    }
    case Op::cross_entropy:
      return {cross_entropy_rule(n, gy), -1};
    case Op::causal: {  // the masked entries get nothing
      Node masked{.op = Op::causal, .in = {zero(i)}, .type = type(i)};
      const int kept = compare(Binary::eq, add(masked), constant(0), type(i));
      return {where(kept, gy, zero(i), type(i))};
    }
    case Op::gather: {
      Node s{.op = Op::scatter_add, .in = {gy, n.in[1]}, .type = float_type(type(x).axes)};
      return {add(s), -1};
    }
    case Op::index:
    case Op::slice: {
      Node p{.op = Op::place,
             .in = {gy, x},
             .axes = n.axes,
             .keep = n.keep,
             .number = n.number,
             .ints = n.ints,
             .type = float_type(type(x).axes)};
      return {add(p)};
    }
    case Op::pad: {
      Node s{.op = Op::slice,
             .in = {gy},
             .axes = n.axes,
             .keep = true,
             .ints = {n.ints[0], n.ints[1]},
             .type = float_type(type(x).axes)};
      return {add(s)};
    }
    case Op::concat:
      return concat_rule(n, gy);
    case Op::stack: {
      std::vector<int> out;
      for (std::size_t k = 0; k < n.in.size(); ++k) {
        Node t{.op = Op::index,
               .in = {gy},
               .axes = {0},
               .number = static_cast<double>(k),
               .type = float_type(type(n.in[k]).axes)};
        out.push_back(add(t));
      }
      return out;
    }
    case Op::sort: {  // each value's gradient goes back to where it came from
      Node order{.op = Op::argsort, .in = {x}, .axes = n.axes, .type = int_type(x)};
      Node inverse{.op = Op::argsort, .in = {add(order)}, .axes = n.axes, .type = int_type(x)};
      Node t{.op = Op::take_along, .in = {gy, add(inverse)}, .axes = n.axes, .type = type(i)};
      return {add(t)};
    }
    case Op::layer_norm:
    case Op::rms_norm:
      return {norm_rule(n, i, gy)};
    case Op::einsum:
      return einsum_rule(n, gy);
    case Op::einops:
      return {einops_rule(n, i, gy)};
    case Op::window: {  // each window element's gradient, added back at its place
      Node fold{.op = Op::window_fold,
                .in = {gy, x},
                .axes = n.axes,
                .ints = n.ints,
                .type = float_type(type(x).axes)};
      return {add(fold)};
    }
    case Op::window_fold: {  // linear: its adjoint is the window (with zero padding)
      Node w{.op = Op::window,
             .in = {gy},
             .axes = n.axes,
             .ints = n.ints,
             .type = float_type(type(x).axes)};
      return {add(w), -1};
    }
    case Op::loop_part:  // the loop's rule reads its parts' adjoints
      return {};
    case Op::loop:
      return loop_rule(i, gy);
    case Op::attention:
    case Op::max_pool:
      return fused_rule(n, gy);
    default:  // kStops and kFirst (above)
      break;
  }
  throw NotDifferentiable(std::string("the gradient of `") + op_name(n.op) + "`", span_);
}

}  // namespace ss::ir::gradient

namespace ss::ir {

using gradient::float_type;
using gradient::is_float;
using gradient::Rules;

std::vector<int> append_vjp(Graph& g, const std::vector<std::pair<int, int>>& seeds,
                            const std::vector<int>& wrt, const DimSizes& dims) {
  const int original = static_cast<int>(g.nodes.size());
  // The nodes on a path from some wrt to a seeded output: reached from wrt
  // going forward, and reaching an output, through float values only.
  std::vector<bool> from_wrt(static_cast<std::size_t>(original), false);
  for (const int w : wrt) from_wrt[static_cast<std::size_t>(w)] = true;
  for (int i = 0; i < original; ++i) {
    const Node& n = g.nodes[static_cast<std::size_t>(i)];
    if (!is_float(n.type)) continue;
    for (const int x : n.in)
      if (from_wrt[static_cast<std::size_t>(x)]) from_wrt[static_cast<std::size_t>(i)] = true;
  }
  std::vector<bool> to_output(static_cast<std::size_t>(original), false);
  int last = -1;
  for (const auto& [output, adjoint] : seeds) {
    to_output[static_cast<std::size_t>(output)] = true;
    last = std::max(last, output);
  }
  for (int i = last; i >= 0; --i) {
    if (!to_output[static_cast<std::size_t>(i)]) continue;
    for (const int x : g.nodes[static_cast<std::size_t>(i)].in)
      to_output[static_cast<std::size_t>(x)] = true;
  }
  const auto needed = [&](int i) {
    return from_wrt[static_cast<std::size_t>(i)] && to_output[static_cast<std::size_t>(i)];
  };

  Rules rules(g, dims);
  rules.adjoint.assign(static_cast<std::size_t>(original), -1);
  rules.needed.resize(static_cast<std::size_t>(original));
  for (int i = 0; i < original; ++i) rules.needed[static_cast<std::size_t>(i)] = needed(i);
  for (const auto& [output, adjoint] : seeds)
    if (needed(output)) rules.accumulate(output, adjoint);
  for (int i = last; i >= 0; --i) {
    if (!needed(i)) continue;
    const int gy = rules.adjoint[static_cast<std::size_t>(i)];
    const std::vector<int> ins = g.nodes[static_cast<std::size_t>(i)].in;
    const bool loop = g.nodes[static_cast<std::size_t>(i)].op == Op::loop;
    if (gy < 0 && !loop) continue;  // a loop's parts may hold its adjoints
    const std::vector<int> shares = loop ? rules.loop_rule(i, gy) : rules.apply(i, gy);
    for (std::size_t k = 0; k < shares.size() && k < ins.size(); ++k)
      if (shares[k] >= 0 && needed(ins[k])) rules.accumulate(ins[k], shares[k]);
  }
  std::vector<int> grads;
  for (const int w : wrt) grads.push_back(rules.adjoint[static_cast<std::size_t>(w)]);
  return grads;
}

std::vector<int> append_gradients(Graph& g, int output, const std::vector<int>& wrt,
                                  const DimSizes& dims) {
  Node one{.op = Op::constant, .number = 1, .type = float_type({})};
  one.span = g.nodes[static_cast<std::size_t>(output)].span;
  const int seed = g.add(std::move(one));
  return append_vjp(g, {{output, seed}}, wrt, dims);
}

}  // namespace ss::ir
