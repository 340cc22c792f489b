// The portable functions 16 lanes wide (built with -mavx512f -mfma: jit/CMakeLists.txt).
#include <immintrin.h>

#include "support/portable_math.hpp"

namespace ss::jit {

typedef float V16 __attribute__((vector_size(64)));

__m512 portable_exp_v16(__m512 x) {
  return (__m512)pmath::exp((V16)x);
}
__m512 portable_log_v16(__m512 x) {
  return (__m512)pmath::log((V16)x);
}
__m512 portable_tanh_v16(__m512 x) {
  return (__m512)pmath::tanh((V16)x);
}
__m512 portable_erf_v16(__m512 x) {
  return (__m512)pmath::erf((V16)x);
}

}  // namespace ss::jit
