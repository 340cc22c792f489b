// The compensated (Kahan) running sum the CUDA kernels' sums share
// (cuda_reduce's rows, cuda_ops' norms): CUDA C, guarded so a source may
// hold it twice.
#pragma once

namespace ss::cuda {

// Each thread's share adds with its rounding error carried, so a long row
// loses no more than the block's pairwise tree does.
inline constexpr const char* kKahanSource = R"(#ifndef SS_KAHAN
#define SS_KAHAN
template <typename T>
struct SsKahan {
  T sum = 0, carry = 0;
  __device__ void add(T v) {
    const T y = v - carry;
    const T t = sum + y;
    carry = (t - sum) - y;
    sum = t;
  }
};
#endif
)";

}  // namespace ss::cuda
