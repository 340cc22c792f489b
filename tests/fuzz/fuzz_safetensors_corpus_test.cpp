// The safetensors fuzz entry point in the ordinary suite: every file of its
// corpus (tests/fuzz/safetensors_corpus: the examples' files, hand-made
// ones of every dtype, and what the campaigns found), then seeded random
// mutations of each, headers and lengths included.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/fuzz_safetensors_entry.hpp"
#include "fuzz/mutate.hpp"
#include "support/paths.hpp"

TEST_CASE("the safetensors reader holds its invariants over its fuzz corpus and mutations") {
  const std::filesystem::path corpus =
      std::filesystem::path(ss::test::kSourceDir) / "tests/fuzz/safetensors_corpus";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(corpus))
    files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 4);
  std::mt19937 rng(20261206);
  const auto run = [](const std::string& input) {
    return ss::test::fuzz_safetensors_one(reinterpret_cast<const std::uint8_t*>(input.data()),
                                          input.size());
  };
  for (const auto& file : files) {
    CAPTURE(file.string());
    std::ifstream in(file, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    const std::string seed = s.str();
    CHECK(run(seed) == "");
    for (int i = 0; i < 300; ++i) {
      // Most edits land in the header when it comes first: mutate it alone too.
      std::string input = ss::test::mutate(seed, rng);
      if (i % 2 && seed.size() > 128)
        input = ss::test::mutate(seed.substr(0, 8 + (rng() % 120)), rng) + seed.substr(128);
      const std::string broken = run(input);
      if (!broken.empty()) FAIL_CHECK(broken << " on mutation " << i);
    }
  }
}
