#include "kernels/cuda_bf16_plan.hpp"

#include <algorithm>

namespace ss::cuda {

bool bf16_gemm(const ir::Node& n) {
  return n.op == ir::Op::matmul || (n.op == ir::Op::einsum && n.in.size() == 2);
}

bool bf16_reader(const ir::Node& n) {
  return bf16_gemm(n) || n.op == ir::Op::reduce;
}

std::vector<char> bf16_storage(const ir::Graph& g, const std::vector<ir::FusedKernel>& kernels,
                               const std::vector<int>& root_of, const std::vector<char>& member) {
  const std::size_t n = g.nodes.size();
  // The fused region each node is computed in (its root or a member), or -1.
  std::vector<int> region(n, -1);
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    region[static_cast<std::size_t>(kernels[k].root)] = static_cast<int>(k);
    for (const int m : kernels[k].members)
      region[static_cast<std::size_t>(m)] = static_cast<int>(k);
  }
  std::vector<char> kept(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const ir::Node& node = g.nodes[i];
    kept[i] = !member[i] && (bf16_gemm(node) || root_of[i] >= 0) &&
              node.type.elem.kind == types::ElemKind::f32;
  }
  for (const int o : g.outputs) kept[static_cast<std::size_t>(o)] = 0;
  for (std::size_t c = 0; c < n; ++c) {
    const ir::Node& reader = g.nodes[c];
    const int k = region[c];
    for (const int v : reader.in) {
      const auto x = static_cast<std::size_t>(v);
      if (!kept[x]) continue;
      const bool loads =
          k >= 0 && std::find(kernels[static_cast<std::size_t>(k)].inputs.begin(),
                              kernels[static_cast<std::size_t>(k)].inputs.end(),
                              v) != kernels[static_cast<std::size_t>(k)].inputs.end();
      if (!(loads || (k < 0 && bf16_reader(reader)))) kept[x] = 0;
    }
  }
  return kept;
}

}  // namespace ss::cuda
