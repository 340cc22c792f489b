// libFuzzer target (the `sanitize` preset): the safetensors reader.
#include <cstdio>
#include <cstdlib>

#include "fuzz/fuzz_safetensors_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string broken = ss::test::fuzz_safetensors_one(data, size);
  if (!broken.empty()) {
    std::fprintf(stderr, "fuzz_safetensors: %s\n", broken.c_str());
    std::abort();
  }
  return 0;
}
