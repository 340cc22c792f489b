// The safetensors reader's fuzz entry point, shared by the libFuzzer target
// (fuzz_safetensors) and the ordinary suite's replay of its corpus: bytes
// in, never a crash. A file either reads or is refused with its code
// (E1408, or E1611 for sizes no machine holds); one that reads writes back
// and reads again to the same tensors, bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ss::test {

// What broke (empty: every invariant held).
std::string fuzz_safetensors_one(const std::uint8_t* data, std::size_t size);

}  // namespace ss::test
