#include "ir/conv_deferral.hpp"

namespace ss::ir {

ConvDeferral plan_conv_deferral(const Graph& g, const std::function<bool(std::size_t)>& fused) {
  const std::size_t count = g.nodes.size();
  ConvDeferral d;
  d.deferred.assign(count, false);
  d.read_at.resize(count);
  for (std::size_t i = 0; i < count; ++i) d.read_at[i] = static_cast<int>(i);
  // Windows read only by two-operand einsums, not outputs.
  std::vector<int> last_einsum(count, -1);
  std::vector<bool> other_reader(count, false);
  for (std::size_t i = 0; i < count; ++i) {
    const Node& n = g.nodes[i];
    const bool pair = n.op == Op::einsum && n.in.size() == 2 && n.in[0] != n.in[1];
    for (const int x : n.in) {
      if (pair)
        last_einsum[static_cast<std::size_t>(x)] = static_cast<int>(i);
      else
        other_reader[static_cast<std::size_t>(x)] = true;
    }
  }
  for (const int o : g.outputs) other_reader[static_cast<std::size_t>(o)] = true;
  for (std::size_t i = 0; i < count; ++i) {
    const Node& n = g.nodes[i];
    if (n.op == Op::window && n.type.elem.kind == types::ElemKind::f32 && last_einsum[i] >= 0 &&
        !other_reader[i] && !fused(i) && !n.axes.empty() && n.axes.front() != 0) {
      d.deferred[i] = d.any = true;
      d.read_at[i] = last_einsum[i];
    }
  }
  // Two-operand einsums read only by a window_fold, as its values.
  std::vector<int> fold_of(count, -1), readers(count, 0);
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t k = 0; k < g.nodes[i].in.size(); ++k) {
      const auto x = static_cast<std::size_t>(g.nodes[i].in[k]);
      ++readers[x];
      if (g.nodes[i].op == Op::window_fold && k == 0) fold_of[x] = static_cast<int>(i);
    }
  for (const int o : g.outputs) ++readers[static_cast<std::size_t>(o)];
  for (std::size_t i = 0; i < count; ++i) {
    const Node& n = g.nodes[i];
    bool reads_deferred = false;
    for (const int x : n.in)
      reads_deferred = reads_deferred || d.deferred[static_cast<std::size_t>(x)];
    if (n.op == Op::einsum && n.in.size() == 2 && n.type.elem.kind == types::ElemKind::f32 &&
        fold_of[i] >= 0 && readers[i] == 1 && !fused(i) && !reads_deferred) {
      d.deferred[i] = d.any = true;
      d.read_at[i] = fold_of[i];
    }
  }
  return d;
}

}  // namespace ss::ir
