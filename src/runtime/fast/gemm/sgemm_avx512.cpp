// The GEMM kernel for AVX-512 (built with -mavx512f): 14 x 32 micro-tiles,
// 28 zmm accumulators. The same code as the AVX2 kernel at twice the width.
#include "runtime/fast/gemm/kernel_args.hpp"

namespace ss::gemm::detail {

constexpr int W = 16;
typedef float V __attribute__((vector_size(64)));
constexpr int MR = 14;
// KC 192: a B micro-panel (192 x 32 floats, 24 KiB) and an A one (14 x
// 192, 10.5 KiB) leave room in a 48 KiB L1; at 256 they filled it, and the
// MLP's 64-row products ran about 8% slower (bench/README, issue 42).
constexpr std::int64_t MC = 168, KC = 192, NC = 3072;

#define SS_GEMM_BLOCKING blocking_avx512
#define SS_GEMM_KERNEL kernel_avx512
#define SS_GEMM_GEMV gemv_avx512
#define SS_GEMM_PACKED_FLOATS packed_floats_avx512
#define SS_GEMM_PACK_B pack_b_avx512
#define SS_GEMM_KERNEL_PACKED kernel_packed_avx512
#include "runtime/fast/gemm/kernel.inc"

}  // namespace ss::gemm::detail
