// The portable numerics' float32 functions (support/portable_math.hpp,
// runtime/fast/portable): exp, log, tanh and erf within the
// `fast-function` row's ulps of the correctly rounded value over every
// 4099th float (specials, subnormals and both signs among them), and each
// kernel path (AVX-512, AVX2, scalar) giving the others' bits for the
// functions and a row's exps and their sum, at every length
// around the vector widths.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/core/cpu_isa.hpp"
#include "runtime/fast/portable/portable_rows.hpp"
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
                            std::pair{Function::tanh, "tanh"}, std::pair{Function::erf, "erf"}}) {
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
  for (const Function f : {Function::exp, Function::log, Function::tanh, Function::erf}) {
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
