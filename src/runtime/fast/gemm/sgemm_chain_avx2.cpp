// The portable numerics' GEMM for AVX2 with FMA (built with -mavx2 -mfma): the AVX2 kernel's 6 x 16
// tiles, each element one chain of fused multiply-adds over k in order (kernel.inc, SS_GEMM_CHAIN):
// the same bits as the other chain kernels whatever their width and blocking.
#include <immintrin.h>

#include "runtime/fast/gemm/kernel_args.hpp"

namespace ss::gemm::detail {

constexpr int W = 8;
typedef float V __attribute__((vector_size(32)));
constexpr int MR = 6;
constexpr std::int64_t MC = 192, KC = 384, NC = 3072;

inline V fmadd(V a, V b, V c) {
  return (V)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
}
inline float fmadd1(float a, float b, float c) {
  return __builtin_fmaf(a, b, c);
}

#define SS_GEMM_CHAIN 1
#define SS_GEMM_BLOCKING blocking_chain_avx2
#define SS_GEMM_KERNEL kernel_chain_avx2
#define SS_GEMM_GEMV gemv_chain_avx2
#define SS_GEMM_PACKED_FLOATS packed_floats_chain_avx2
#define SS_GEMM_PACK_B pack_b_chain_avx2
#define SS_GEMM_KERNEL_PACKED kernel_packed_chain_avx2
#include "runtime/fast/gemm/kernel.inc"

}  // namespace ss::gemm::detail
