// The portable numerics' GEMM for any CPU with FMA (built with -mfma alone): the portable kernel's
// 4 x 8 tiles of four-wide vectors, each element one chain of fused multiply-adds over k in order
// (kernel.inc, SS_GEMM_CHAIN): the same bits as the other chain kernels whatever their width and
// blocking.
#include <immintrin.h>

#include "runtime/fast/gemm/kernel_args.hpp"

namespace ss::gemm::detail {

constexpr int W = 4;
typedef float V __attribute__((vector_size(16)));
constexpr int MR = 4;
constexpr std::int64_t MC = 128, KC = 256, NC = 2048;

inline V fmadd(V a, V b, V c) {
  return (V)_mm_fmadd_ps((__m128)a, (__m128)b, (__m128)c);
}
inline float fmadd1(float a, float b, float c) {
  return __builtin_fmaf(a, b, c);
}

#define SS_GEMM_CHAIN 1
#define SS_GEMM_BLOCKING blocking_chain_scalar
#define SS_GEMM_KERNEL kernel_chain_scalar
#define SS_GEMM_GEMV gemv_chain_scalar
#define SS_GEMM_PACKED_FLOATS packed_floats_chain_scalar
#define SS_GEMM_PACK_B pack_b_chain_scalar
#define SS_GEMM_KERNEL_PACKED kernel_packed_chain_scalar
#include "runtime/fast/gemm/kernel.inc"

}  // namespace ss::gemm::detail
