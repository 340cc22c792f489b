// The portable numerics' GEMM for AVX-512 (built with -mavx512f -mfma): the AVX-512 kernel's 14 x
// 32 tiles, each element one chain of fused multiply-adds over k in order (kernel.inc,
// SS_GEMM_CHAIN): the same bits as the other chain kernels whatever their width and blocking.
#include <immintrin.h>

#include "runtime/fast/gemm/kernel_args.hpp"

namespace ss::gemm::detail {

constexpr int W = 16;
typedef float V __attribute__((vector_size(64)));
constexpr int MR = 14;
constexpr std::int64_t MC = 168, KC = 192, NC = 3072;

inline V fmadd(V a, V b, V c) {
  return (V)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
}
inline float fmadd1(float a, float b, float c) {
  return __builtin_fmaf(a, b, c);
}

#define SS_GEMM_CHAIN 1
#define SS_GEMM_BLOCKING blocking_chain_avx512
#define SS_GEMM_KERNEL kernel_chain_avx512
#define SS_GEMM_GEMV gemv_chain_avx512
#define SS_GEMM_PACKED_FLOATS packed_floats_chain_avx512
#define SS_GEMM_PACK_B pack_b_chain_avx512
#define SS_GEMM_KERNEL_PACKED kernel_packed_chain_avx512
#include "runtime/fast/gemm/kernel.inc"

}  // namespace ss::gemm::detail
