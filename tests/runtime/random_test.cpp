// The generator against Random123's known-answer vectors, and its draws.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/core/random.hpp"

using ss::runtime::philox4x32;

TEST_CASE("Philox4x32-10 gives Random123's known answers") {
  using Words = std::array<std::uint32_t, 4>;
  CHECK(philox4x32({0, 0, 0, 0}, {0, 0}) == Words{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        Words{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        Words{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("draws repeat for a seed, differ across seeds and streams, and have the right moments") {
  CHECK(ss::runtime::random_normal(7, 0, 123) == ss::runtime::random_normal(7, 0, 123));
  CHECK(ss::runtime::random_normal(7, 0, 123) != ss::runtime::random_normal(8, 0, 123));
  CHECK(ss::runtime::random_normal(7, 0, 123) != ss::runtime::random_normal(7, 1, 123));
  constexpr int n = 200000;
  double sum = 0, squares = 0, usum = 0;
  float lowest = 1, highest = 0;
  for (int i = 0; i < n; ++i) {
    const double z = ss::runtime::random_normal(42, 3, static_cast<std::uint64_t>(i));
    sum += z;
    squares += z * z;
    const float u = ss::runtime::random_uniform(42, 3, static_cast<std::uint64_t>(i));
    usum += u;
    lowest = std::min(lowest, u);
    highest = std::max(highest, u);
  }
  // Five standard errors: a wrong generator fails, a right one essentially never.
  CHECK(std::fabs(sum / n) < 5 / std::sqrt(n));
  CHECK(std::fabs(squares / n - 1) < 5 * std::sqrt(2.0 / n));
  CHECK(std::fabs(usum / n - 0.5) < 5 * std::sqrt(1.0 / 12 / n));
  CHECK(lowest >= 0.0f);
  CHECK(highest < 1.0f);
}

namespace {

// The draw as libm's log and cos make it, for the bound below.
double libm_normal(std::uint64_t seed, std::uint32_t stream, std::uint64_t index) {
  const auto w = philox4x32(
      {static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), stream, 0},
      {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
  const double u1 = 1.0 - static_cast<double>(w[0] >> 8) / 16777216.0;
  const double u2 = static_cast<double>(w[1] >> 8) / 16777216.0;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace

TEST_CASE("normal draws are libm's Box-Muller within an ulp, and the same bits everywhere") {
  // The portable log and cos (no libm): within a float ulp of libm's draw
  // (most the same bits), and a known answer for the first 100,000 draws,
  // so a machine or C library that drew other bits fails here.
  std::uint64_t h = 1469598103934665603ull;
  std::int64_t differ = 0;
  double worst = 0;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const float z = ss::runtime::random_normal(2026, 1, i);
    const double want = libm_normal(2026, 1, i);
    const float rounded = static_cast<float>(want);
    differ += z != rounded;
    worst = std::max(
        worst,
        std::fabs(z - want) /
            std::max(std::ldexp(1.0, -149),
                     static_cast<double>(std::fabs(std::nextafter(rounded, INFINITY) - rounded))));
    std::uint32_t bits;
    std::memcpy(&bits, &z, sizeof bits);
    for (int b = 0; b < 4; ++b) h = (h ^ ((bits >> (8 * b)) & 0xff)) * 1099511628211ull;
  }
  MESSAGE("normal draws: " << differ << " of 100000 differ from libm's rounded draw; worst "
                           << worst << " ulp; hash " << h);
  CHECK(worst <= 1.0);
  CHECK(differ < 1000);
  CHECK(h == 0xf4917cf2d202136eull);
}
