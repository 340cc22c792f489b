// The portable numerics' float32 functions (support/portable_math.hpp,
// runtime/fast/portable): exp, log, tanh, erf, sin, cos, tan, asin, acos
// and atan within the `fast-function` row's ulps of the correctly rounded
// value over every 4099th float (specials, subnormals and both signs among
// them); each kernel path (AVX-512, AVX2, scalar) giving the others' bits
// for the functions and a row's exps and their sum, at every length
// around the vector widths; pow against C's; and the NaN an argument
// outside a function's domain gives.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ir/ops.hpp"
#include "runtime/core/cpu_isa.hpp"
#include "runtime/fast/portable/portable_rows.hpp"
#include "runtime/fast/portable/portable_steps.hpp"
#include "support/numerics.hpp"

namespace {

namespace portable = ss::runtime::fast::portable;
using portable::Function;

std::vector<float> every_4099th() {
  std::vector<float> x;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 4099) {
    const auto u = static_cast<std::uint32_t>(b);
    float f;
    std::memcpy(&f, &u, sizeof f);
    x.push_back(f);
  }
  for (const float f : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -1e-45f, 88.7228f, 89.0f,
                        -103.97f, -104.0f, -87.34f, 0.625f, -0.625f, 0.927734375f, 9.0f, -9.0f})
    x.push_back(f);
  return x;
}

double reference(Function f, double x) {
  switch (f) {
    case Function::exp:
      return std::exp(x);
    case Function::log:
      return std::log(x);
    case Function::tanh:
      return std::tanh(x);
    case Function::erf:
      return std::erf(x);
    case Function::sin:
      return std::sin(x);
    case Function::cos:
      return std::cos(x);
    case Function::tan:
      return std::tan(x);
    case Function::asin:
      return std::asin(x);
    case Function::acos:
      return std::acos(x);
    case Function::atan:
      return std::atan(x);
  }
  return x;
}

bool same_bits(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

std::vector<portable::Path> paths_here() {
  std::vector<portable::Path> out = {portable::path_scalar()};
  const auto isa = ss::runtime::cpu_isa();
  if (isa >= ss::runtime::Isa::avx2) out.push_back(portable::path_avx2());
  if (isa >= ss::runtime::Isa::avx512) out.push_back(portable::path_avx512());
  return out;
}

}  // namespace

TEST_CASE("the portable functions are within the fast-function row of the rounded value") {
  const auto x = every_4099th();
  const double bound = ss::test::tolerance("fast-function").ulp;
  std::vector<float> got(x.size());
  for (const auto& entry : {std::pair{Function::exp, "exp"}, std::pair{Function::log, "log"},
                            std::pair{Function::tanh, "tanh"}, std::pair{Function::erf, "erf"},
                            std::pair{Function::sin, "sin"}, std::pair{Function::cos, "cos"},
                            std::pair{Function::tan, "tan"}, std::pair{Function::asin, "asin"},
                            std::pair{Function::acos, "acos"}, std::pair{Function::atan, "atan"}}) {
    // (named, not bound: clang 14 can't capture a structured binding)
    const Function f = entry.first;
    const std::string name = entry.second;
    CAPTURE(name);
    portable::map(f, x.data(), got.data(), static_cast<std::int64_t>(x.size()));
    double worst = 0;
    std::int64_t wrong_specials = 0;
    for (std::size_t k = 0; k < x.size(); ++k) {
      const double want = static_cast<float>(reference(f, x[k]));
      if (std::isnan(want) || std::isinf(want) || want == 0) {
        // NaN, infinities and zeros exactly, with their signs.
        const bool same =
            std::isnan(want) ? std::isnan(got[k]) : same_bits(got[k], static_cast<float>(want));
        if (!same && !(want == 0 && std::fabs(got[k]) < 1e-44)) ++wrong_specials;
        continue;
      }
      worst = std::max(worst, std::fabs(got[k] - want) / ss::test::float_ulp(want));
    }
    MESSAGE(name << ": worst " << worst << " ulp over " << x.size() << " floats");
    CHECK(worst <= bound);
    CHECK(wrong_specials == 0);
  }
}

TEST_CASE("every portable kernel path gives the same bits: functions, exps and their sums") {
  const auto paths = paths_here();
  for (const char* name : {"avx512", "avx2"})
    if (std::none_of(paths.begin(), paths.end(),
                     [&](const portable::Path& p) { return std::string(p.name) == name; }))
      MESSAGE("not run: this CPU hasn't the " << std::string(name) << " path");
  const auto x = every_4099th();
  const auto n = static_cast<std::int64_t>(x.size());
  const portable::Path& base = paths.front();
  for (const Function f :
       {Function::exp, Function::log, Function::tanh, Function::erf, Function::sin, Function::cos,
        Function::tan, Function::asin, Function::acos, Function::atan}) {
    std::vector<float> want(x.size()), got(x.size());
    base.map(f, x.data(), want.data(), n);
    for (const auto& p : paths) {
      CAPTURE(std::string(p.name));
      p.map(f, x.data(), got.data(), n);
      std::int64_t differ = 0;
      for (std::size_t k = 0; k < x.size(); ++k) differ += !same_bits(got[k], want[k]);
      CHECK(differ == 0);
    }
  }
  // Rows of every length to 70 (and one long one) of scores as softmax
  // meets them, -inf among them.
  std::vector<float> row(5000);
  for (std::size_t k = 0; k < row.size(); ++k)
    row[k] = k % 13 == 5 ? -INFINITY : static_cast<float>(7 * std::sin(0.7 * k));
  for (std::int64_t len = 0; len <= 71; ++len)
    for (const std::int64_t length : {len, len == 71 ? std::int64_t{5000} : len}) {
      CAPTURE(length);
      std::vector<float> e0(row.size()), e1(row.size());
      const float s0 = base.exp_sum(row.data(), 3.5f, e0.data(), length);
      for (const auto& p : paths) {
        CAPTURE(std::string(p.name));
        const float s1 = p.exp_sum(row.data(), 3.5f, e1.data(), length);
        CHECK(same_bits(s0, s1));
        CHECK(std::memcmp(e0.data(), e1.data(), sizeof(float) * static_cast<std::size_t>(length)) ==
              0);
      }
    }
}

TEST_CASE("the portable pow is C's, its special cases exactly, else within an ulp once rounded") {
  // Every pair of a grid of floats (specials, signed zeros, integers odd
  // and even, fractions, both signs, tiny and huge) against libm's pow in
  // double, as `**` computes it: rounded to float, as the formula does
  // (through the steps the JIT and portable_steps both run).
  const portable::Steps* pow_steps = portable::binary_steps(ss::ir::Binary::pow);
  REQUIRE(pow_steps);
  std::vector<float> v = {0.0f,   -0.0f,  INFINITY,    -INFINITY, NAN,    1.0f, -1.0f, 2.0f,
                          -2.0f,  3.0f,   -3.0f,       0.5f,      -0.5f,  1.5f, -2.5f, 10.0f,
                          1e-3f,  1e-30f, 1e30f,       -1e30f,    1e-45f, 7.0f, 0.1f,  100.5f,
                          0.999f, 1.001f, 16777217.0f, 4e9f,      -4e9f};
  for (int k = 1; k < 40; ++k) v.push_back(static_cast<float>(std::sin(0.9 * k) * 30.0));
  double worst = 0;
  std::int64_t wrong_specials = 0;
  for (const float x : v)
    for (const float y : v) {
      const double want_d = std::pow(static_cast<double>(x), static_cast<double>(y));
      const float args[2] = {x, y};
      const float want = static_cast<float>(want_d), got = (*pow_steps)(args);
      if (std::isnan(want) || std::isinf(want) || want == 0 || want_d == 1) {
        if (!(std::isnan(want) ? std::isnan(got) : same_bits(got, want))) {
          ++wrong_specials;
          MESSAGE("pow(" << x << ", " << y << "): " << got << ", libm " << want);
        }
        continue;
      }
      worst = std::max(worst, std::fabs(got - want) / ss::test::float_ulp(want));
    }
  MESSAGE("pow: worst " << worst << " ulp over " << v.size() * v.size() << " pairs");
  CHECK(worst <= 1.0);
  CHECK(wrong_specials == 0);
}

TEST_CASE("a NaN the portable functions make has the bits of the one x86's arithmetic makes") {
  // (Else which of two NaNs an addition keeps, an order the vectoriser may
  // swap, would show in a result's bits: a sum of a NaN from log(-1) and
  // one from 0 * inf.)
  volatile float zero = 0.0f, inf = INFINITY;
  const float made = zero * inf;
  const std::vector<std::pair<Function, float>> outside = {
      {Function::log, -1.0f},    {Function::asin, 2.0f},     {Function::acos, -2.0f},
      {Function::sin, INFINITY}, {Function::cos, -INFINITY}, {Function::tan, INFINITY}};
  for (const auto& p : paths_here())
    for (const auto& entry : outside) {
      CAPTURE(std::string(p.name));
      CAPTURE(static_cast<int>(entry.first));
      std::vector<float> x(37, entry.second), got(x.size());
      p.map(entry.first, x.data(), got.data(), static_cast<std::int64_t>(x.size()));
      for (const float g : got) CHECK(same_bits(g, made));
    }
  const float args[2] = {-2.0f, 0.5f};
  const float pow_nan = (*portable::binary_steps(ss::ir::Binary::pow))(args);
  CHECK(same_bits(pow_nan, made));
}
