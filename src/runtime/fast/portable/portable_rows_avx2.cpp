// The portable row loops at 8 lanes (built with -mavx2 -mfma; src/CMakeLists.txt).
#include <cstdint>

namespace ss::runtime::fast::portable {
constexpr int W = 8;
typedef float V __attribute__((vector_size(32)));
}  // namespace ss::runtime::fast::portable

#define SS_PORTABLE_PATH avx2
#define SS_PORTABLE_NAME "avx2"
#include "runtime/fast/portable/portable_rows.inc"
