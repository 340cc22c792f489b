// The fuzz entry point in the ordinary suite: every file of the seed corpus
// (tests/fuzz/corpus and the example programs), then a bounded number of
// seeded random mutations of each.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "catalog/catalog.hpp"
#include "fuzz/fuzz_entry.hpp"
#include "fuzz/mutate.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

constexpr int kMutationsPerSeed = 60;

}  // namespace

TEST_CASE("the fuzz entry point holds its invariants over the corpus and its mutations") {
  const std::filesystem::path root = ss::test::kSourceDir;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(root / "tests/fuzz/corpus"))
    files.push_back(entry.path());
  for (const char* folder : {"examples", "tests/programs"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / folder))
      if (entry.path().extension() == ".ss") files.push_back(entry.path());
  std::sort(files.begin(), files.end());  // a fixed order, so the mutations repeat
  std::vector<std::pair<std::string, std::string>> seeds_text;
  for (const auto& file : files)
    seeds_text.emplace_back(file.string(), ss::test::read_file(file.string()));
  // The catalog's example programs: every error path starts from one.
  std::vector<std::string> problems;
  for (const auto& entry :
       ss::test::parse_catalog(ss::test::read_file((root / "docs/errors.md").string()), &problems))
    if (entry.example && entry.example->language == "shapescript")
      seeds_text.emplace_back("docs/errors.md " + entry.code, entry.example->body);

  std::mt19937 rng(20261129);
  int seeds = 0;
  for (const auto& named_seed : seeds_text) {
    const std::string& seed = named_seed.second;
    CAPTURE(named_seed.first);
    auto run = [](const std::string& input) {
      return ss::test::fuzz_one(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
    };
    CHECK(run(seed) == "");
    for (int i = 0; i < kMutationsPerSeed; ++i) {
      const std::string input = ss::test::mutate(seed, rng);
      const std::string broken = run(input);
      if (!broken.empty()) FAIL_CHECK(broken << " on mutation " << i);
    }
    ++seeds;
  }
  CHECK(seeds >= 100);
}
