// A two-operand einsum as a batch of GEMMs, the plan both the CPU's and
// the CUDA executor's contractions follow: names in both operands and the
// output are the batch, in one operand and the output the rows (a) or
// columns (b), in both operands only contracted. The product is made as
// [batch, rows, columns] and then put in the output's order.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime {

struct EinsumPlan {
  // The operands' axes in [batch..., rows..., inner...] and
  // [batch..., inner..., columns...] order: permutations of each.
  std::vector<std::int64_t> a_order, b_order;
  std::size_t batch_axes = 0, row_axes = 0, inner_axes = 0;
  std::int64_t batches = 1, m = 1, k = 1, n = 1;
  Shape computed;  // [batch..., rows..., columns...]
  // The permutation of `computed` into the output's order; empty when it
  // already is.
  std::vector<std::int64_t> out_order;
};

// The names each operand and the output have, flattened from the node's
// groups.
std::vector<std::string> einsum_names(const std::vector<std::vector<std::string>>& groups);

// Autodiff's three-operand einsum, one operand with exactly the output's
// names: the einsum of the other two (a two-operand node), and the
// position of the one that multiplies its product elementwise. nullopt
// for other einsums.
struct EinsumTimes {
  ir::Node pair;
  std::size_t factor = 0;
};
std::optional<EinsumTimes> einsum_times(const ir::Node& n);

// nullopt for what isn't a batch of GEMMs (a name summed in one operand
// alone, a name twice in one operand or in the output, sizes that
// disagree): those are the reference's. The plan is the calling thread's,
// remembered for the next call at these shapes (valid until 63 other
// plans were made on the thread).
const EinsumPlan* plan_einsum(const ir::Node& n, const Shape& a, const Shape& b);

}  // namespace ss::runtime
