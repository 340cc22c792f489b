// Size arithmetic in 64 bits: a sum, difference or product of sizes that
// would pass them is nullopt, never a wrapped number (E0409 reports it).
#pragma once

#include <cstdint>
#include <optional>

namespace ss::types {

inline std::optional<std::int64_t> add_sizes(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<std::int64_t> sub_sizes(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<std::int64_t> mul_sizes(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

}  // namespace ss::types
