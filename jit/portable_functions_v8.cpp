// The portable functions 8 lanes wide (built with -mavx2 -mfma: jit/CMakeLists.txt).
#include <immintrin.h>

#include "support/portable_math.hpp"

namespace ss::jit {

typedef float V8 __attribute__((vector_size(32)));

__m256 portable_exp_v8(__m256 x) {
  return (__m256)pmath::exp((V8)x);
}
__m256 portable_log_v8(__m256 x) {
  return (__m256)pmath::log((V8)x);
}
__m256 portable_tanh_v8(__m256 x) {
  return (__m256)pmath::tanh((V8)x);
}
__m256 portable_erf_v8(__m256 x) {
  return (__m256)pmath::erf((V8)x);
}

}  // namespace ss::jit
