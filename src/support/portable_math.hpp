// One float32 implementation of each function that Numerics::portable
// computes (docs/numerics.md): exp, log, tanh and erf, written once for a
// float or a GCC vector of floats (4, 8 or 16 lanes). Each is a fixed list
// of correctly rounded operations (+ - * /, fused multiply-adds, compares,
// selects, bit moves; no library call, no table), so each lane gives the
// same bits at every width, on every x86-64 CPU with FMA, whichever
// compiler flags the including file has; no libm, no SLEEF. Round to
// nearest and no flush-to-zero are assumed (portable mode sets them on the
// threads it computes on). Within the `fast-function` row's ulps of the
// correctly rounded value (tests/runtime/portable_math_test.cpp).
//
// Everything here has internal linkage: each file, built for its
// instruction set, gets its own copy (a shared inline function could be
// merged into one copy with instructions the CPU lacks).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ss::pmath {
namespace {

// The integer lanes beside a float type: int for float, an int vector of
// as many lanes for a float vector. (Spelled per size: GCC drops a vector
// attribute on a dependent type.)
typedef std::int32_t Int4 __attribute__((vector_size(16)));
typedef std::int32_t Int8 __attribute__((vector_size(32)));
typedef std::int32_t Int16 __attribute__((vector_size(64)));
template <std::size_t Bytes>
struct IntLanes;
template <>
struct IntLanes<4> {
  using Int = std::int32_t;
};
template <>
struct IntLanes<16> {
  using Int = Int4;
};
template <>
struct IntLanes<32> {
  using Int = Int8;
};
template <>
struct IntLanes<64> {
  using Int = Int16;
};
template <typename F>
using IntOf = typename IntLanes<sizeof(F)>::Int;

template <typename F>
inline F splat(float x) {
  if constexpr (std::is_same_v<F, float>)
    return x;
  else
    return x - F{};  // every lane x (x - 0 is x for every x, -0 included)
}

template <typename F>
inline IntOf<F> splat_int(std::int32_t x) {
  if constexpr (std::is_same_v<F, float>)
    return x;
  else
    return x - IntOf<F>{};
}

// a * b + c rounded once.
template <typename F>
inline F fmadd(F a, F b, F c) {
  if constexpr (std::is_same_v<F, float>) return __builtin_fmaf(a, b, c);
#if defined(__AVX512F__)
  else if constexpr (sizeof(F) == 64)
    return (F)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#endif
#if defined(__FMA__)
  else if constexpr (sizeof(F) == 32)
    return (F)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
  else if constexpr (sizeof(F) == 16)
    return (F)_mm_fmadd_ps((__m128)a, (__m128)b, (__m128)c);
#endif
  else {  // a lane at a time (a file built without FMA: fmaf's library call)
    F out;
    for (unsigned l = 0; l < sizeof(F) / sizeof(float); ++l)
      out[l] = __builtin_fmaf(a[l], b[l], c[l]);
    return out;
  }
}

// Where `mask` holds (a compare's result), a, else b.
template <typename F, typename M>
inline F pick(M mask, F a, F b) {
  return mask ? a : b;
}

template <typename F>
inline IntOf<F> bits(F x) {
  return __builtin_bit_cast(IntOf<F>, x);
}
template <typename F>
inline F from_bits(IntOf<F> x) {
  return __builtin_bit_cast(F, x);
}

// A float that holds a whole number in int32's range, as that int.
template <typename F>
inline IntOf<F> whole_to_int(F x) {
  if constexpr (std::is_same_v<F, float>)
    return static_cast<std::int32_t>(x);
  else
    return __builtin_convertvector(x, IntOf<F>);
}
template <typename F>
inline F int_to_float(IntOf<F> x) {
  if constexpr (std::is_same_v<F, float>)
    return static_cast<float>(x);
  else
    return __builtin_convertvector(x, F);
}

template <typename F>
inline F abs_of(F x) {
  return from_bits<F>(bits(x) & splat_int<F>(0x7fffffff));
}
template <typename F>
inline F with_sign_of(F magnitude, F sign) {
  return from_bits<F>((bits(magnitude) & splat_int<F>(0x7fffffff)) |
                      (bits(sign) & splat_int<F>(static_cast<std::int32_t>(0x80000000u))));
}

// x rounded to the nearest whole number (ties to even), |x| < 2^22.
template <typename F>
inline F round_whole(F x) {
  const F magic = splat<F>(12582912.0f);  // 1.5 * 2^23
  return (x + magic) - magic;
}

// 2^n for whole n in [-150, 128], as two factors so that neither leaves
// the normal range: a product with them rounds once.
template <typename F>
inline F times_two_to(F y, IntOf<F> n) {
  const IntOf<F> half = n >> 1, rest = n - half;
  const F a = from_bits<F>((half + 127) << 23), b = from_bits<F>((rest + 127) << 23);
  return (y * a) * b;
}

// e^x: x = n ln2 + r, |r| <= ln2 / 2, e^r by a degree-7 polynomial
// (Cephes' expf), then scaled by 2^n. Overflow gives inf, underflow 0 (or
// a subnormal), NaN stays NaN.
template <typename F>
inline F exp(F x) {
  const F hi = splat<F>(89.0f), lo = splat<F>(-104.0f);
  // NaN as 0 through the arithmetic (a NaN cast to int is undefined), put
  // back at the end.
  F t = pick(x == x, x, splat<F>(0.0f));
  t = pick(t > hi, hi, t);
  t = pick(t < lo, lo, t);
  const F n = round_whole(t * splat<F>(1.44269504088896341f));
  F r = fmadd(n, splat<F>(-0.693359375f), t);
  r = fmadd(n, splat<F>(2.12194440e-4f), r);
  const F z = r * r;
  F p = splat<F>(1.9875691500e-4f);
  p = fmadd(p, r, splat<F>(1.3981999507e-3f));
  p = fmadd(p, r, splat<F>(8.3334519073e-3f));
  p = fmadd(p, r, splat<F>(4.1665795894e-2f));
  p = fmadd(p, r, splat<F>(1.6666665459e-1f));
  p = fmadd(p, r, splat<F>(5.0000001201e-1f));
  const F y = fmadd(p, z, r) + splat<F>(1.0f);
  return pick(x == x, times_two_to(y, whole_to_int(n)), x + x);
}

// ln x: x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = ln(1 + f) by
// Cephes' logf polynomial, plus e ln 2 in two parts. Subnormals scaled
// first; 0 gives -inf, below 0 NaN, inf inf, NaN NaN.
template <typename F>
inline F log(F x) {
  const auto tiny = x < splat<F>(1.17549435e-38f);           // subnormal (or 0, or below)
  const F scaled = pick(tiny, x * splat<F>(8388608.0f), x);  // 2^23
  const IntOf<F> b = bits(scaled);
  IntOf<F> e = ((b >> 23) & 0xff) - 127;
  F m = from_bits<F>((b & 0x007fffff) | 0x3f800000);  // [1, 2)
  const auto big = m > splat<F>(1.41421356237f);
  m = pick(big, m * splat<F>(0.5f), m);
  e = e + (big ? splat_int<F>(1) : splat_int<F>(0));
  if constexpr (std::is_same_v<F, float>)
    e = tiny ? e - 23 : e;
  else
    e = e - (tiny ? splat_int<F>(23) : splat_int<F>(0));
  const F f = m - splat<F>(1.0f);
  const F z = f * f;
  F p = splat<F>(7.0376836292e-2f);
  p = fmadd(p, f, splat<F>(-1.1514610310e-1f));
  p = fmadd(p, f, splat<F>(1.1676998740e-1f));
  p = fmadd(p, f, splat<F>(-1.2420140846e-1f));
  p = fmadd(p, f, splat<F>(1.4249322787e-1f));
  p = fmadd(p, f, splat<F>(-1.6668057665e-1f));
  p = fmadd(p, f, splat<F>(2.0000714765e-1f));
  p = fmadd(p, f, splat<F>(-2.4999993993e-1f));
  p = fmadd(p, f, splat<F>(3.3333331174e-1f));
  const F ef = int_to_float<F>(e);
  F y = (p * f) * z;
  y = fmadd(ef, splat<F>(-2.12194440e-4f), y);
  y = fmadd(z, splat<F>(-0.5f), y);
  F out = f + y;
  out = fmadd(ef, splat<F>(0.693359375f), out);
  const F inf = splat<F>(__builtin_inff());
  out = pick(x == splat<F>(0.0f), -inf, out);
  out = pick(x < splat<F>(0.0f), splat<F>(__builtin_nanf("")), out);
  out = pick(x == inf, inf, out);
  return pick(x == x, out, x + x);
}

// tanh x: an odd polynomial below 0.625 (Cephes' tanhf), else
// 1 - 2 / (e^2|x| + 1) with x's sign; +-1 past 9.
template <typename F>
inline F tanh(F x) {
  const F a = abs_of(x);
  const F z = x * x;
  F p = splat<F>(-5.70498872745e-3f);
  p = fmadd(p, z, splat<F>(2.06390887954e-2f));
  p = fmadd(p, z, splat<F>(-5.37397155531e-2f));
  p = fmadd(p, z, splat<F>(1.33314422036e-1f));
  p = fmadd(p, z, splat<F>(-3.33332819422e-1f));
  const F small = fmadd(p * z, x, x);
  const F e = exp(pick(a > splat<F>(9.0f), splat<F>(18.0f), a + a));
  F large = splat<F>(1.0f) - splat<F>(2.0f) / (e + splat<F>(1.0f));
  large = pick(a > splat<F>(9.0f), splat<F>(1.0f), large);
  const F out = pick(a < splat<F>(0.625f), small, with_sign_of(large, x));
  return pick(x == x, pick(x == splat<F>(0.0f), x, out), x + x);  // -0 stays -0
}

// erf x: an odd polynomial in x below 0.927734375, else
// 1 - e^p(|x|) with x's sign, p a polynomial (after N. Juffa's erff).
template <typename F>
inline F erf(F x) {
  const F t = abs_of(x), s = x * x;
  F r = fmadd(splat<F>(-1.72853470e-5f), t, splat<F>(3.83197126e-4f));
  const F u = fmadd(splat<F>(-3.88396438e-3f), t, splat<F>(2.42546219e-2f));
  r = fmadd(r, s, u);
  r = fmadd(r, t, splat<F>(-1.06777877e-1f));
  r = fmadd(r, t, splat<F>(-6.34846687e-1f));
  r = fmadd(r, t, splat<F>(-1.28717512e-1f));
  r = fmadd(r, t, -t);
  const F large = with_sign_of(splat<F>(1.0f) - exp(r), x);
  F q = splat<F>(-5.96761703e-4f);
  q = fmadd(q, s, splat<F>(4.99119423e-3f));
  q = fmadd(q, s, splat<F>(-2.67681349e-2f));
  q = fmadd(q, s, splat<F>(1.12819925e-1f));
  q = fmadd(q, s, splat<F>(-3.76125336e-1f));
  q = fmadd(q, s, splat<F>(1.28379166e-1f));
  const F small = fmadd(q, x, x);
  const F out = pick(t > splat<F>(0.927734375f), large, small);
  return pick(x == x, pick(x == splat<F>(0.0f), x, out), x + x);
}

}  // namespace
}  // namespace ss::pmath
