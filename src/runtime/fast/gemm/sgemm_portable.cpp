// The GEMM kernel for any CPU: the same packed code with 4-wide vectors
// (SSE2 on x86-64), for CPUs without AVX2.
#include "runtime/fast/gemm/kernel_args.hpp"

namespace ss::gemm::detail {

constexpr int W = 4;
typedef float V __attribute__((vector_size(16)));
constexpr int MR = 4;
constexpr std::int64_t MC = 128, KC = 256, NC = 2048;

#define SS_GEMM_BLOCKING blocking_portable
#define SS_GEMM_KERNEL kernel_portable
#define SS_GEMM_GEMV gemv_portable
#define SS_GEMM_PACKED_FLOATS packed_floats_portable
#define SS_GEMM_PACK_B pack_b_portable
#define SS_GEMM_KERNEL_PACKED kernel_packed_portable
#include "runtime/fast/gemm/kernel.inc"

}  // namespace ss::gemm::detail
