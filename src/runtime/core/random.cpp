#include "runtime/core/random.hpp"

#include <cmath>

#include "support/portable_math.hpp"

namespace ss::runtime {

std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> c,
                                        std::array<std::uint32_t, 2> k) {
  constexpr std::uint32_t kMul0 = 0xD2511F53, kMul1 = 0xCD9E8D57;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9, kWeyl1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(kMul0) * c[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(kMul1) * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
    k = {k[0] + kWeyl0, k[1] + kWeyl1};
  }
  return c;
}

namespace {

std::array<std::uint32_t, 4> block(std::uint64_t seed, std::uint32_t stream, std::uint64_t index) {
  return philox4x32(
      {static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), stream, 0},
      {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}

// 24 bits to [0, 1): exactly representable in a float.
float unit(std::uint32_t bits) {
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

}  // namespace

float random_uniform(std::uint64_t seed, std::uint32_t stream, std::uint64_t index) {
  return unit(block(seed, stream, index)[0]);
}

// Box and Muller's sqrt(-2 ln u1) cos(2 pi u2), in double through the
// portable functions (support/portable_math.hpp), not libm: every CPU and
// C library draws the same bits, so a parameter's initial value is the
// same on each peer of a lockstep game (docs/numerics.md).
float random_normal(std::uint64_t seed, std::uint32_t stream, std::uint64_t index) {
  const auto words = block(seed, stream, index);
  const double u1 = 1.0 - static_cast<double>(unit(words[0]));  // in [2^-24, 1]: the log is finite
  // u2 is a multiple of 2^-24 in [0, 1): 4 u2 less its nearest whole q is
  // exact, so 2 pi u2 = q pi/2 + r with r = (4 u2 - q) pi/2 in [-pi/4, pi/4].
  const double quarters = 4.0 * static_cast<double>(unit(words[1]));
  const double q = pmath::round_whole_d(quarters);
  const double r = (quarters - q) * 1.57079632679489661923;
  double c = 0;
  switch (static_cast<int>(q) & 3) {
    case 0:
      c = pmath::cos_quarter(r);
      break;
    case 1:
      c = -pmath::sin_quarter(r);
      break;
    case 2:
      c = -pmath::cos_quarter(r);
      break;
    default:
      c = pmath::sin_quarter(r);
      break;
  }
  return static_cast<float>(std::sqrt(-2.0 * pmath::log_d(u1)) * c);
}

}  // namespace ss::runtime
