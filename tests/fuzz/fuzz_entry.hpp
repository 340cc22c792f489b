// The one entry point the fuzzer and the test suite share: source bytes in,
// diagnostics or success out, and never a crash: reading, lexing, parsing,
// checking, and lowering every device function of a program that checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ss::test {

// Checks `size` bytes as a program. Returns an empty string when every
// invariant held, else what broke.
std::string fuzz_one(const std::uint8_t* data, std::size_t size);

}  // namespace ss::test
