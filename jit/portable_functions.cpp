#include "jit/portable_functions.hpp"

#include <immintrin.h>

namespace ss::jit {

// portable_functions_v4.cpp, _v8.cpp, _v16.cpp.
float portable_exp(float);
float portable_log(float);
float portable_tanh(float);
float portable_erf(float);
float portable_sin(float);
float portable_cos(float);
float portable_tan(float);
float portable_asin(float);
float portable_acos(float);
float portable_atan(float);
double portable_pow(double, double);
__m128 portable_exp_v4(__m128);
__m128 portable_log_v4(__m128);
__m128 portable_tanh_v4(__m128);
__m128 portable_erf_v4(__m128);
__m256 portable_exp_v8(__m256);
__m256 portable_log_v8(__m256);
__m256 portable_tanh_v8(__m256);
__m256 portable_erf_v8(__m256);
__m512 portable_exp_v16(__m512);
__m512 portable_log_v16(__m512);
__m512 portable_tanh_v16(__m512);
__m512 portable_erf_v16(__m512);

namespace {

template <typename F>
void* address(F* f) {
  return reinterpret_cast<void*>(f);
}

}  // namespace

std::vector<PortableFunction> portable_functions() {
  return {
      {"ss_portable_expf", nullptr, 1, "", address(portable_exp)},
      {"ss_portable_logf", nullptr, 1, "", address(portable_log)},
      {"ss_portable_tanhf", nullptr, 1, "", address(portable_tanh)},
      {"ss_portable_erff", nullptr, 1, "", address(portable_erf)},
      {"ss_portable_sinf", nullptr, 1, "", address(portable_sin)},
      {"ss_portable_cosf", nullptr, 1, "", address(portable_cos)},
      {"ss_portable_tanf", nullptr, 1, "", address(portable_tan)},
      {"ss_portable_asinf", nullptr, 1, "", address(portable_asin)},
      {"ss_portable_acosf", nullptr, 1, "", address(portable_acos)},
      {"ss_portable_atanf", nullptr, 1, "", address(portable_atan)},
      {"ss_portable_pow", nullptr, 1, "", address(portable_pow)},
      {"ss_portable_expf", "ss_portable_expf_v4", 4, "fma", address(portable_exp_v4)},
      {"ss_portable_logf", "ss_portable_logf_v4", 4, "fma", address(portable_log_v4)},
      {"ss_portable_tanhf", "ss_portable_tanhf_v4", 4, "fma", address(portable_tanh_v4)},
      {"ss_portable_erff", "ss_portable_erff_v4", 4, "fma", address(portable_erf_v4)},
      {"ss_portable_expf", "ss_portable_expf_v8", 8, "avx2", address(portable_exp_v8)},
      {"ss_portable_logf", "ss_portable_logf_v8", 8, "avx2", address(portable_log_v8)},
      {"ss_portable_tanhf", "ss_portable_tanhf_v8", 8, "avx2", address(portable_tanh_v8)},
      {"ss_portable_erff", "ss_portable_erff_v8", 8, "avx2", address(portable_erf_v8)},
      {"ss_portable_expf", "ss_portable_expf_v16", 16, "avx512f", address(portable_exp_v16)},
      {"ss_portable_logf", "ss_portable_logf_v16", 16, "avx512f", address(portable_log_v16)},
      {"ss_portable_tanhf", "ss_portable_tanhf_v16", 16, "avx512f", address(portable_tanh_v16)},
      {"ss_portable_erff", "ss_portable_erff_v16", 16, "avx512f", address(portable_erf_v16)},
  };
}

}  // namespace ss::jit
