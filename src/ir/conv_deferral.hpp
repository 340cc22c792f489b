// Which of a graph's convolution parts an executor leaves unmade, so that
// the op that reads them computes them together with itself (oneDNN's or
// cuDNN's convolution, or an im2col a slab at a time): a window only
// two-operand einsums read (the forward pass and the kernel's gradient
// read the image through it), and a two-operand einsum only a
// window_fold reads (the input's gradient). A node left unmade reads its
// inputs where its last reader runs, so they live until then.
#pragma once

#include <functional>
#include <vector>

#include "ir/graph.hpp"

namespace ss::ir {

// A grouped convolution as lowering writes it (lower_windows.cpp): the
// window W of the image, split by S into groups of channels, the kernel
// split by K, their einsum P batched over the groups, joined again by J.
// W, S, K and P are deferred; J computes the convolution from W's image
// and K's kernel.
struct GroupedConv {
  int window = -1, split_image = -1, split_kernel = -1, product = -1, join = -1;
};

struct ConvDeferral {
  std::vector<bool> deferred;  // per node
  // Per node: the join of a grouped convolution, its index in `grouped`; else -1.
  std::vector<int> grouped_at;
  std::vector<GroupedConv> grouped;
  // Per node: the node at which it reads its inputs (itself, or for a
  // deferred one its last reader), as plan_releases's read_at takes it.
  std::vector<int> read_at;
  bool any = false;
};

// `fused(i)`: node i is computed inside a fused kernel (never deferred).
ConvDeferral plan_conv_deferral(const Graph& g, const std::function<bool(std::size_t)>& fused);

}  // namespace ss::ir
