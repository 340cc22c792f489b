// A convolution's pass found in a graph as lowering builds it
// (lower/lower_windows.cpp), as one cuDNN call (kernels/cudnn.hpp) takes
// it: the forward pass, an einsum of the window [n oh ow c kh kw] and the
// kernel [kh kw c f]; the kernel's gradient, an einsum of the output's
// gradient and the window; the input's gradient, a window_fold of an
// einsum of the output's gradient and the kernel. Which values cuDNN
// reads, each a permuted view of a node's value, and how its result is
// permuted into the node's. Host-side only, so the tests run it on the
// reference's values (tests/kernels/cudnn_test.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "ir/graph.hpp"
#include "kernels/cudnn.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::cuda {

struct ConvCall {
  Cudnn::Pass pass = Cudnn::Pass::forward;
  ConvShape shape;
  // The nodes whose values are Cudnn::run's a and b, each permuted by its
  // order into cuDNN's layout (then made compact).
  int a = -1, b = -1;
  std::vector<std::int64_t> a_order, b_order;
  // cuDNN's result: [n oh ow f], [n h w c] or [f kh kw c]; permuted by
  // out_order (empty: as it is) it is the node's value.
  runtime::Shape out_shape;
  std::vector<std::int64_t> out_order;
};

// Node i of g as a cuDNN pass, reading the window (or, for a fold, the
// einsum) the executor left unmade: `made(v)` gives the shape of a value
// that is there (the window's input, the kernel, the output's gradient).
// nullopt where it isn't a 2-D convolution over channels-last images with
// zero padding cuDNN can give (even on both sides, or the same windows),
// or its sizes pass cuDNN's ints.
std::optional<ConvCall> match_conv(const ir::Graph& g, std::size_t i,
                                   const std::function<runtime::Shape(int)>& made);

}  // namespace ss::cuda
