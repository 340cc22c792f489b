// The portable functions 4 lanes wide (built with -mfma: jit/CMakeLists.txt).
#include <immintrin.h>

#include "support/portable_math.hpp"

namespace ss::jit {

typedef float V4 __attribute__((vector_size(16)));

__m128 portable_exp_v4(__m128 x) {
  return (__m128)pmath::exp((V4)x);
}
__m128 portable_log_v4(__m128 x) {
  return (__m128)pmath::log((V4)x);
}
__m128 portable_tanh_v4(__m128 x) {
  return (__m128)pmath::tanh((V4)x);
}
__m128 portable_erf_v4(__m128 x) {
  return (__m128)pmath::erf((V4)x);
}

// The scalar ones, for the iterations a vector leaves over: the same
// operations one lane at a time.
float portable_exp(float x) {
  return pmath::exp(x);
}
float portable_log(float x) {
  return pmath::log(x);
}
float portable_tanh(float x) {
  return pmath::tanh(x);
}
float portable_erf(float x) {
  return pmath::erf(x);
}

// A lane at a time through double (no vector forms).
float portable_sin(float x) {
  return pmath::sin1(x);
}
float portable_cos(float x) {
  return pmath::cos1(x);
}
float portable_tan(float x) {
  return pmath::tan1(x);
}
float portable_asin(float x) {
  return pmath::asin1(x);
}
float portable_acos(float x) {
  return pmath::acos1(x);
}
float portable_atan(float x) {
  return pmath::atan1(x);
}
double portable_pow(double x, double y) {
  return pmath::pow_d(x, y);
}

}  // namespace ss::jit
