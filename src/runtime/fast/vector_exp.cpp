#include "runtime/fast/vector_exp.hpp"

#include <dlfcn.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/core/cpu_isa.hpp"

namespace ss::runtime::fast {
namespace {

using runtime::Isa;
using runtime::kernel_isa;

using Exp8 = __m256 (*)(__m256);
using Exp16 = __m512 (*)(__m512);

struct Sleef {
  Exp8 exp8 = nullptr;
  Exp16 exp16 = nullptr;
  const char* name = "libm";
};

const Sleef& sleef() {
  static const Sleef s = [] {
    Sleef found;
    // Never closed: the functions are used for the process's life.
    void* library = ::dlopen("libsleef.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!library) return found;
    const Isa isa = kernel_isa();
    if (isa >= Isa::avx512)
      found.exp16 = reinterpret_cast<Exp16>(::dlsym(library, "Sleef_expf16_u10avx512f"));
    if (isa >= Isa::avx2)
      found.exp8 = reinterpret_cast<Exp8>(::dlsym(library, "Sleef_expf8_u10avx2"));
    found.name = found.exp16 ? "sleef avx512f" : found.exp8 ? "sleef avx2" : "libm";
    return found;
  }();
  return s;
}

constexpr float kMinusInfinity = -std::numeric_limits<float>::infinity();

__attribute__((target("avx2,fma"))) float exp_sum_avx2(Exp8 exp8, const float* in, float shift,
                                                       float* out, std::int64_t n) {
  const __m256 s = _mm256_set1_ps(shift);
  __m256 acc = _mm256_setzero_ps();
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(in + i), s));
    _mm256_storeu_ps(out + i, e);
    acc = _mm256_add_ps(acc, e);
  }
  if (i < n) {  // padded with -inf, whose exp adds 0
    alignas(32) float tail[8];
    std::fill(tail, tail + 8, kMinusInfinity);
    std::copy(in + i, in + n, tail);
    const __m256 e = exp8(_mm256_sub_ps(_mm256_load_ps(tail), s));
    _mm256_store_ps(tail, e);
    std::copy(tail, tail + (n - i), out + i);
    acc = _mm256_add_ps(acc, e);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, acc);
  return add_lanes(lanes);
}

// out[i] = exp(in[i] - shift) on up to four rows (row r at in + r *
// stride and out + r * stride, shift[r]), sums[r] their sum: sixteen lanes
// a vector, a tail padded with -inf (whose exp adds 0), the lanes added
// pairwise. The rows' calls interleave, so that they overlap (one row's
// are a chain of dependent calls); exp_sum is its one row.
__attribute__((target("avx512f"))) void exp_sum_rows_avx512(Exp16 exp16, const float* in,
                                                            float* out, std::int64_t stride,
                                                            int rows, const float* shift,
                                                            std::int64_t n, float* sums) {
  constexpr int kMax = 4;
  __m512 s[kMax], acc[kMax];
  for (int r = 0; r < rows; ++r) {
    s[r] = _mm512_set1_ps(shift[r]);
    acc[r] = _mm512_setzero_ps();
  }
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int r = 0; r < rows; ++r) {
      const __m512 e = exp16(_mm512_sub_ps(_mm512_loadu_ps(in + r * stride + i), s[r]));
      _mm512_storeu_ps(out + r * stride + i, e);
      acc[r] = _mm512_add_ps(acc[r], e);
    }
  if (i < n) {
    alignas(64) float tail[kMax][16];
    __m512 e[kMax];
    for (int r = 0; r < rows; ++r) {
      std::fill(tail[r], tail[r] + 16, kMinusInfinity);
      std::copy(in + r * stride + i, in + r * stride + n, tail[r]);
      e[r] = exp16(_mm512_sub_ps(_mm512_load_ps(tail[r]), s[r]));
    }
    for (int r = 0; r < rows; ++r) {
      _mm512_store_ps(tail[r], e[r]);
      std::copy(tail[r], tail[r] + (n - i), out + r * stride + i);
      acc[r] = _mm512_add_ps(acc[r], e[r]);
    }
  }
  for (int r = 0; r < rows; ++r) {
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, acc[r]);
    float half[8];
    for (int k = 0; k < 8; ++k) half[k] = lanes[k] + lanes[k + 8];
    sums[r] = add_lanes(half);
  }
}

// maxps(x, peak) is `x > peak ? x : peak`: peak where either is NaN, as
// the scalar test keeps it.
__attribute__((target("avx2"))) float row_max_avx2(const float* x, std::int64_t n) {
  __m256 peak = _mm256_set1_ps(kMinusInfinity);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) peak = _mm256_max_ps(_mm256_loadu_ps(x + i), peak);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, peak);
  float best = kMinusInfinity;
  for (const float v : lanes) best = best < v ? v : best;
  for (; i < n; ++i) best = best < x[i] ? x[i] : best;
  return best;
}

}  // namespace

float row_max(const float* x, std::int64_t n) {
  static const bool avx2 = kernel_isa() >= Isa::avx2;
  if (avx2) return row_max_avx2(x, n);
  float best = kMinusInfinity;
  for (std::int64_t i = 0; i < n; ++i) best = best < x[i] ? x[i] : best;
  return best;
}

float exp_sum(const float* in, float shift, float* out, std::int64_t n) {
  const Sleef& s = sleef();
  if (s.exp16) {
    float sum = 0;
    exp_sum_rows_avx512(s.exp16, in, out, 0, 1, &shift, n, &sum);
    return sum;
  }
  if (s.exp8) return exp_sum_avx2(s.exp8, in, shift, out, n);
  float lanes[8] = {};
  for (std::int64_t i = 0; i < n; ++i) {
    out[i] = std::exp(in[i] - shift);
    lanes[i % 8] += out[i];
  }
  return add_lanes(lanes);
}

void exp_sum_rows(float* x, std::int64_t stride, int rows, const float* shift, std::int64_t n,
                  float* sums) {
  const Sleef& s = sleef();
  for (int r0 = 0; r0 < rows; r0 += 4) {
    const int part = std::min(4, rows - r0);
    if (s.exp16) {
      exp_sum_rows_avx512(s.exp16, x + r0 * stride, x + r0 * stride, stride, part, shift + r0, n,
                          sums + r0);
      continue;
    }
    for (int r = r0; r < r0 + part; ++r)
      sums[r] = exp_sum(x + r * stride, shift[r], x + r * stride, n);
  }
}

const char* vector_exp_name() {
  return sleef().name;
}

}  // namespace ss::runtime::fast
