// CUDA C for a reduction over each row's trailing group (sum, mean, max,
// min, logsumexp, var, std): one block a row (a grid-stride loop over
// rows), each thread accumulating its strided share in double, then a
// block reduction (warp shuffles, then shared memory). The order of the
// additions is the block's, so sums agree with the reference's sequential
// ones within float rounding, not bit for bit; max and min are exact, with
// the reference's NaN rule (std::max_element: a NaN counts only first).
//
//   extern "C" __global__ void NAME(const T* x, float* out,
//                                   long long rows, long long group)
//
// Launch with 256 threads a block.
#pragma once

#include <string>

#include "ir/ops.hpp"

namespace ss::cuda {

inline constexpr int kReduceThreads = 256;

// `input`: the element's C type (float, int, or unsigned char for bool;
// unsigned short for a float32 value kept in bf16, widened as it is read);
// the result is float either way.
std::string reduction_source(ir::Reduce op, const std::string& name,
                             const std::string& input = "float");

}  // namespace ss::cuda
