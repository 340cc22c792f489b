// CUDA C for a fused elementwise kernel (ir/fusion.hpp's regions, the same
// plan the CPU's JIT compiles), for NVRTC. One thread an element, a grid
// stride loop; every input read through its row's stride and 0 or 1 along
// the inner axis, as the CPU kernels read them. The arithmetic is the
// reference runtime's: +, -, *, / and sqrt in float, each rounded
// (__fadd_rn and the like, so nothing contracts into an FMA), comparisons
// in float, everything else in double and rounded after.
//
//   extern "C" __global__ void NAME(NAME_args args, float* out,
//                                   long long outer, long long inner)
//
// where NAME_args holds `const void* in[N]` and `long long stride[N]` (in
// elements), passed by value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/fusion.hpp"

namespace ss::cuda {

std::string elementwise_source(const ir::FusedKernel& kernel,
                               const std::vector<std::uint8_t>& inner_broadcast,
                               const std::string& name);

}  // namespace ss::cuda
