// Randomness: a counter-based generator (Philox4x32-10, Salmon et al. 2011,
// as in JAX and cuRAND), so a value depends only on (seed, stream, index):
// runs repeat bit for bit, in any order and on any number of workers.
#pragma once

#include <array>
#include <cstdint>

namespace ss::runtime {

// One Philox4x32-10 block: four 32-bit words from a 128-bit counter and a
// 64-bit key.
std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> counter,
                                        std::array<std::uint32_t, 2> key);

// The index-th value of a stream: uniform in [0, 1) with 24 random bits,
// or standard normal (Box-Muller on the block's first two words).
float random_uniform(std::uint64_t seed, std::uint32_t stream, std::uint64_t index);
float random_normal(std::uint64_t seed, std::uint32_t stream, std::uint64_t index);

}  // namespace ss::runtime
