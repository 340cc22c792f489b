// One float32 implementation of each function that Numerics::portable
// computes (docs/numerics.md): exp, log, tanh and erf, written once for a
// float or a GCC vector of floats (4, 8 or 16 lanes); sin, cos, tan, asin,
// acos and atan of a float and pow of two doubles, through double, a lane
// at a time. Each is a fixed list
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

// The NaN an x86 invalid operation makes (sign set, quiet, no payload):
// what a function returns for an argument outside its domain, so a NaN
// it makes has the bits of one the arithmetic around it makes, and which
// of two NaNs an addition keeps can't change a result's bits.
constexpr float kNanF = __builtin_bit_cast(float, 0xffc00000u);
constexpr double kNan = __builtin_bit_cast(double, 0xfff8000000000000ull);

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
  out = pick(x < splat<F>(0.0f), splat<F>(kNanF), out);
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

// ---- Functions through double, one lane at a time ----
// sin, cos, tan, asin, acos and atan of a float, and pow of two doubles
// (what `**` widens to): each a fixed list of double operations (no FMA,
// no library call), the float ones rounded once at the end. A vector runs
// them lane by lane: the same bits.

inline std::uint64_t bits64(double x) {
  return __builtin_bit_cast(std::uint64_t, x);
}
inline double from_bits64(std::uint64_t x) {
  return __builtin_bit_cast(double, x);
}

// A double holding a whole number, rounded to nearest (|x| < 2^51).
inline double round_whole_d(double x) {
  const double magic = 6755399441055744.0;  // 1.5 * 2^52
  return (x + magic) - magic;
}

// 2^n times y for whole n in [-1075, 1024], in two factors.
inline double times_two_to_d(double y, std::int64_t n) {
  const std::int64_t half = n / 2, rest = n - half;
  return (y * from_bits64(static_cast<std::uint64_t>(half + 1023) << 52)) *
         from_bits64(static_cast<std::uint64_t>(rest + 1023) << 52);
}

// 2/pi's bits, each entry a window of them (after ARM's optimized-routines).
inline constexpr std::uint32_t kInvPio4[24] = {
    0xa2,       0xa2f9,     0xa2f983,   0xa2f9836e, 0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529,
    0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1, 0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0,
    0x34ddc0db, 0xddc0db62, 0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041};

// x (finite) less its nearest multiple of pi/2, |r| <= pi/4, in double,
// and the multiple's quadrant: Cody and Waite's two parts of pi/2 below
// 1e5 (the multiple times the first part is exact), else 2/pi's bits
// (Payne and Hanek's reduction in integers).
inline double reduce_quarter(float xf, int* quadrant) {
  const double x = xf;
  if (xf < 1.0e5f && xf > -1.0e5f) {
    const double k = round_whole_d(x * 0.63661977236758134308);
    double r = x - k * 1.57079632673412561417e+00;
    r = r - k * 6.07710050650619224932e-11;
    *quadrant = static_cast<int>(static_cast<std::int64_t>(k) & 3);
    return r;
  }
  const auto xi = __builtin_bit_cast(std::uint32_t, xf);
  const std::uint32_t* window = &kInvPio4[(xi >> 26) & 15];
  const int shift = (xi >> 23) & 7;
  const std::uint32_t m = ((xi & 0xffffff) | 0x800000) << shift;
  std::uint64_t r0 = static_cast<std::uint32_t>(m * window[0]);
  const std::uint64_t r1 = static_cast<std::uint64_t>(m) * window[4];
  const std::uint64_t r2 = static_cast<std::uint64_t>(m) * window[8];
  r0 = (r2 >> 32) | (r0 << 32);
  r0 += r1;
  const std::uint64_t n = (r0 + (std::uint64_t{1} << 61)) >> 62;
  r0 -= n << 62;
  const double r = static_cast<double>(static_cast<std::int64_t>(r0)) * 0x1.921FB54442D18p-62;
  const int q = static_cast<int>(n);
  *quadrant = (xf < 0 ? -q : q) & 3;
  return xf < 0 ? -r : r;
}

// sin, cos and tan of |r| <= pi/4 in double (FreeBSD's float kernels).
inline double sin_quarter(double x) {
  const double z = x * x, w = z * z, r = -0x1a00f9e2cae774.0p-65 + z * 0x16cd878c3b46a7.0p-71,
               s = z * x;
  return (x + s * (-0x15555554cbac77.0p-55 + z * 0x111110896efbb2.0p-59)) + s * w * r;
}
inline double cos_quarter(double x) {
  const double z = x * x, w = z * z, r = -0x16c087e80f1e27.0p-62 + z * 0x199342e0ee5069.0p-68;
  return ((1.0 + z * -0x1ffffffd0c5e81.0p-54) + w * 0x155553e1053a42.0p-57) + (w * z) * r;
}
inline double tan_quarter(double x, bool odd) {
  const double z = x * x;
  double r = 0x185dadfcecf44e.0p-61 + z * 0x1362b9bf971bcd.0p-59;
  const double t = 0x1b54c91d865afe.0p-57 + z * 0x191df3908c33ce.0p-58, w = z * z, s = z * x,
               u = 0x15554d3418c99f.0p-54 + z * 0x1112fd38999f72.0p-55;
  r = (x + s * u) + (s * w) * (t + w * r);
  return odd ? -1.0 / r : r;
}

inline float sin1(float x) {
  if (!(x - x == 0.0f)) return x - x;  // inf or NaN: NaN
  if (x == 0.0f) return x;
  int q = 0;
  const double r = reduce_quarter(x, &q);
  const double v = (q & 1) ? cos_quarter(r) : sin_quarter(r);
  return static_cast<float>((q & 2) ? -v : v);
}
inline float cos1(float x) {
  if (!(x - x == 0.0f)) return x - x;
  int q = 0;
  const double r = reduce_quarter(x, &q);
  const double v = (q & 1) ? -sin_quarter(r) : cos_quarter(r);
  return static_cast<float>((q & 2) ? -v : v);
}
inline float tan1(float x) {
  if (!(x - x == 0.0f)) return x - x;
  if (x == 0.0f) return x;
  int q = 0;
  const double r = reduce_quarter(x, &q);
  return static_cast<float>(tan_quarter(r, q & 1));
}

// atan in double: Cephes' atan (a rational function after reducing by
// tan(3 pi / 8) and 0.66).
inline double atan_d(double x) {
  const bool negative = x < 0;
  if (negative) x = -x;
  double y = 0, z;
  int flag = 0;
  if (x > 2.41421356237309504880) {
    y = 1.57079632679489661923;
    flag = 1;
    x = -(1.0 / x);
  } else if (x > 0.66) {
    y = 0.78539816339744830962;
    flag = 2;
    x = (x - 1.0) / (x + 1.0);
  }
  z = x * x;
  z = z *
      ((((-8.750608600031904122785e-1 * z - 1.615753718733365076637e1) * z -
         7.500855792314704667340e1) *
            z -
        1.228866684490136173410e2) *
           z -
       6.485021904942025371773e1) /
      (((((z + 2.485846490142306297962e1) * z + 1.650270098316988542046e2) * z +
         4.328810604912902668951e2) *
            z +
        4.853903996359136964868e2) *
           z +
       1.945506571482613964425e2);
  z = x * z + x;
  if (flag == 2)
    z += 0.5 * 6.123233995736765886130e-17;
  else if (flag == 1)
    z += 6.123233995736765886130e-17;
  y = y + z;
  return negative ? -y : y;
}

inline float atan1(float x) {
  if (x != x) return x + x;
  return x == 0.0f ? x : static_cast<float>(atan_d(x));
}
inline float asin1(float x) {
  if (x != x) return x + x;
  const double a = x < 0 ? -static_cast<double>(x) : static_cast<double>(x);
  if (a > 1) return kNanF;
  if (x == 0.0f) return x;
  const double v = a < 0.5 ? atan_d(a / __builtin_sqrt((1 - a) * (1 + a)))
                           : 1.57079632679489661923 - 2 * atan_d(__builtin_sqrt((1 - a) / (1 + a)));
  return static_cast<float>(x < 0 ? -v : v);
}
inline float acos1(float x) {
  if (x != x) return x + x;
  const double a = x;
  if (a > 1 || a < -1) return kNanF;
  if (a == -1) return static_cast<float>(3.14159265358979323846);
  return static_cast<float>(2 * atan_d(__builtin_sqrt((1 - a) / (1 + a))));
}

// e^x and ln x in double (fdlibm's e_exp and e_log), for pow.
inline double exp_d(double x) {
  if (x != x) return x + x;
  if (x > 709.782712893383973096) return __builtin_inf();
  if (x < -745.13321910194110842) return 0.0;
  const double k = round_whole_d(x * 1.44269504088896338700e+00);
  const double hi = x - k * 6.93147180369123816490e-01, lo = k * 1.90821492927058770002e-10;
  const double r = hi - lo, t = r * r;
  const double c =
      r - t * (1.66666666666666019037e-01 +
               t * (-2.77777777770155933842e-03 +
                    t * (6.61375632143793436117e-05 +
                         t * (-1.65339022054652515390e-06 + t * 4.13813679705723846039e-08))));
  const double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
  return times_two_to_d(y, static_cast<std::int64_t>(k));
}

// ln x for a finite x > 0 that is a normal double.
inline double log_d(double x) {
  std::uint64_t b = bits64(x);
  std::int64_t k = static_cast<std::int64_t>(b >> 52) - 1023;
  double m = from_bits64((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);  // [1, 2)
  if (m > 1.41421356237309504880) {
    m *= 0.5;
    ++k;
  }
  const double f = m - 1.0, s = f / (2.0 + f), z = s * s, w = z * z;
  const double t1 = w * (3.999999999940941908e-01 +
                         w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01));
  const double t2 = z * (6.666666666666735130e-01 +
                         w * (2.857142874366239149e-01 +
                              w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
  const double hfsq = 0.5 * f * f, dk = static_cast<double>(k);
  return dk * 6.93147180369123816490e-01 -
         ((hfsq - (s * (hfsq + t2 + t1) + dk * 1.90821492927058770002e-10)) - f);
}

// pow(x, y) for doubles that floats widened to: C's pow, its special
// cases included, else e^(y ln|x|) with the sign an odd y gives a
// negative x.
inline double pow_d(double x, double y) {
  const double inf = __builtin_inf();
  if (y == 0 || x == 1) return 1.0;
  if (x != x || y != y) return x + y;
  const double ay = y < 0 ? -y : y;
  const bool whole = ay >= 9007199254740992.0 || round_whole_d(ay) == ay;
  const bool odd = whole && ay < 9007199254740992.0 && (static_cast<std::int64_t>(ay) & 1) == 1;
  const double ax = x < 0 ? -x : x;
  if (ay == inf) {
    if (ax == 1) return 1.0;
    return (ax < 1) == (y < 0) ? inf : 0.0;
  }
  if (x == 0) {
    const double r = y < 0 ? inf : 0.0;
    return odd && bits64(x) >> 63 ? -r : r;
  }
  if (ax == inf) {
    const double r = y < 0 ? 0.0 : inf;
    return x < 0 && odd ? -r : r;
  }
  if (x < 0 && !whole) return kNan;
  const double r = exp_d(y * log_d(ax));
  return x < 0 && odd ? -r : r;
}

template <typename F, typename G>
inline F each_lane(F x, G g) {
  if constexpr (std::is_same_v<F, float>) {
    return g(x);
  } else {
    F out;
    for (unsigned l = 0; l < sizeof(F) / sizeof(float); ++l) out[l] = g(x[l]);
    return out;
  }
}

template <typename F>
inline F sin(F x) {
  return each_lane(x, sin1);
}
template <typename F>
inline F cos(F x) {
  return each_lane(x, cos1);
}
template <typename F>
inline F tan(F x) {
  return each_lane(x, tan1);
}
template <typename F>
inline F asin(F x) {
  return each_lane(x, asin1);
}
template <typename F>
inline F acos(F x) {
  return each_lane(x, acos1);
}
template <typename F>
inline F atan(F x) {
  return each_lane(x, atan1);
}

}  // namespace
}  // namespace ss::pmath
