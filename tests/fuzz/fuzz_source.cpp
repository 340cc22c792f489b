// libFuzzer target (the `sanitize` preset); docs/building.md shows how to run it.
#include <cstdio>
#include <cstdlib>

#include "fuzz/fuzz_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string broken = ss::test::fuzz_one(data, size);
  if (!broken.empty()) {
    std::fprintf(stderr, "fuzz_source: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}
