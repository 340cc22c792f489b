// A convolution's elementwise tail that oneDNN can add as it stores each
// output (its bias, post-ops): a fused kernel computing act(conv [+ bias]),
// the convolution read by nothing else: act ReLU (or
// maximum(x, 0)), a clip (minimum(maximum(x, lo), hi): ReLU6) or none. The
// executor then runs the convolution inside the kernel's run, never
// storing its output alone. A residual added too is left to the kernel:
// oneDNN 2.6 runs a convolution with a binary post-op on its older jit
// kernel, not brgconv, slower than a pass after (measured on ResNet-18).
#pragma once

#include <vector>

#include "ir/conv_deferral.hpp"
#include "ir/fusion.hpp"
#include "ir/graph.hpp"

namespace ss::ir {

struct ConvEpilogue {
  enum class Activation { none, relu, clip };
  int conv = -1;  // the forward: an einsum over a deferred window, or a grouped join
  int bias = -1;  // a vector of the output's last axis, or -1
  Activation activation = Activation::none;
  float lo = 0, hi = 0;  // a clip's
};

// conv -1 where the kernel isn't such a tail. `uses`: use_counts(g).
ConvEpilogue conv_epilogue(const Graph& g, const FusedKernel& kernel, const ConvDeferral& deferral,
                           const std::vector<int>& uses);

}  // namespace ss::ir
