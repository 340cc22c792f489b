// The portable row loops at 16 lanes (built with -mavx512f -mfma; src/CMakeLists.txt).
#include <cstdint>

namespace ss::runtime::fast::portable {
constexpr int W = 16;
typedef float V __attribute__((vector_size(64)));
}  // namespace ss::runtime::fast::portable

#define SS_PORTABLE_PATH avx512
#define SS_PORTABLE_NAME "avx512"
#include "runtime/fast/portable/portable_rows.inc"
