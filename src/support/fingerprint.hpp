// FNV-1a, 64 bits: a cheap fingerprint of bytes (a cached object's
// integrity, what the processes of one job loaded), not a cryptographic hash.
#pragma once

#include <cstdint>
#include <string_view>

namespace ss::support {

inline std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash = 14695981039346656037ull) {
  for (const unsigned char c : bytes) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

}  // namespace ss::support
