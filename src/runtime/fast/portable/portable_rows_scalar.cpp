// The portable row loops at 4 lanes (built with -mfma; src/CMakeLists.txt).
#include <cstdint>

namespace ss::runtime::fast::portable {
constexpr int W = 4;
typedef float V __attribute__((vector_size(16)));
}  // namespace ss::runtime::fast::portable

#define SS_PORTABLE_PATH scalar
#define SS_PORTABLE_NAME "scalar"
#include "runtime/fast/portable/portable_rows.inc"
