// Nodes that stand for a chain of others (attention, max_pool): the chain
// is the node's body, which any executor without a kernel for the node
// runs, and the node's gradient is one node too (attention_grad,
// max_pool_grad), its body the chain's gradient as autodiff writes it.
#pragma once

#include <cstddef>
#include <optional>

#include "ir/autodiff.hpp"
#include "ir/graph.hpp"

namespace ss::ir {

// For a fused op: its gradient's op, and how many of its first inputs get a
// gradient (the rest, a scale, are constants); nullopt for any other op.
struct FusedGradient {
  Op op;
  std::size_t inputs;
};
std::optional<FusedGradient> fused_gradient(Op op);

// The body of the gradient node of fused node `n`: inputs n's and the
// gradient of its value (`dout`); one output, the gradients of n's first
// `inputs` inputs, stacked along a new leading axis when there are several
// (they share a type).
Graph gradient_body(const Node& n, std::size_t inputs, const DimSizes& dims);

}  // namespace ss::ir
