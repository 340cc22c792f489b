// CUDA C for a fused elementwise kernel (ir/fusion.hpp's regions, the same
// plan the CPU's JIT compiles), for NVRTC. One thread an element, a grid
// stride loop; every input read through its row's stride and 0 or 1 along
// the inner axis, as the CPU kernels read them. Everything is float32, no
// double anywhere: +, -, *, / and sqrt correctly rounded (__fadd_rn and
// the like, so nothing contracts into an FMA), the functions CUDA's float
// ones (expf, logf, tanhf, erff, powf: 1-4 ulp), each formula's numbers
// rounded to float once. docs/numerics.md's cuda-elementwise row bounds
// the result against the reference's double formulas.
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

// A formula's function (exp, sqrt, fmod, ..., and `nan`; ir/formulas.hpp)
// as CUDA's float function, or its double one.
std::string float_function(const std::string& name);
std::string double_function(const std::string& name);
// What rendered formulas call besides CUDA's own: ss_nanf and ss_nan, a
// quiet NaN (guarded: any number of sources may include it).
extern const char* const kFormulaHelpers;

// `bf16_in` (one flag an input, or empty for none) marks the inputs kept
// in bf16 (kernels/cuda_bf16_plan.hpp), each load widened exactly to float;
// `bf16_out` stores the result rounded to bf16 (to nearest, ties to even),
// `out` then an `unsigned short*`. The arithmetic stays float32.
std::string elementwise_source(const ir::FusedKernel& kernel,
                               const std::vector<std::uint8_t>& inner_broadcast,
                               const std::string& name,
                               const std::vector<std::uint8_t>& bf16_in = {},
                               bool bf16_out = false);

}  // namespace ss::cuda
