// The GEMM kernel for AVX2 with FMA (built with -mavx2 -mfma): 6 x 16
// micro-tiles, 12 ymm accumulators.
#include "runtime/fast/gemm/kernel_args.hpp"

namespace ss::gemm::detail {

constexpr int W = 8;
typedef float V __attribute__((vector_size(32)));
constexpr int MR = 6;
constexpr std::int64_t MC = 192, KC = 384, NC = 3072;

#define SS_GEMM_BLOCKING blocking_avx2
#define SS_GEMM_KERNEL kernel_avx2
#define SS_GEMM_GEMV gemv_avx2
#define SS_GEMM_PACKED_FLOATS packed_floats_avx2
#define SS_GEMM_PACK_B pack_b_avx2
#define SS_GEMM_KERNEL_PACKED kernel_packed_avx2
#include "runtime/fast/gemm/kernel.inc"

}  // namespace ss::gemm::detail
