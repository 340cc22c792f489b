// The generator against Random123's known-answer vectors, and its draws.
#include <doctest/doctest.h>

#include <cmath>

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
