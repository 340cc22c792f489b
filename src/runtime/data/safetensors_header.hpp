// A safetensors file's JSON header, read by a parser of its own: nlohmann's
// json frees an object through a stack it allocates in a noexcept
// destructor, so memory refused there would end the host's process; here
// it is std::bad_alloc (E1611). It reads any JSON (depth-limited) and keeps
// what a safetensors header holds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ss::runtime {

struct SafetensorsEntry {
  std::string name, dtype;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  // data_offsets
};

// The header's tensors, in the file's order (`__metadata__` left out), or
// false with *why (not JSON, an entry without dtype, shape or
// data_offsets, a shape that isn't unsigned integers, a name twice).
bool parse_safetensors_header(std::string_view text, std::vector<SafetensorsEntry>* entries,
                              std::string* why);

}  // namespace ss::runtime
