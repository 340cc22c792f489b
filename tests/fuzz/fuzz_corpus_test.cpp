// The fuzz entry point in the ordinary suite: every file of the seed corpus
// (tests/fuzz/corpus and the example programs), then a bounded number of
// seeded random mutations of each.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "catalog/catalog.hpp"
#include "fuzz/fuzz_entry.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

constexpr int kMutationsPerSeed = 60;

std::string mutate(std::string s, std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(0, 255);
  const int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 4) {
      case 0:  // flip a byte
        if (at < s.size()) s[at] = static_cast<char>(byte(rng));
        break;
      case 1:  // insert a byte
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(byte(rng)));
        break;
      case 2:  // delete a run
        if (at < s.size()) s.erase(at, 1 + rng() % 16);
        break;
      default:  // duplicate a run
        if (at < s.size()) s.insert(at, s.substr(at, 1 + rng() % 64));
        break;
    }
  }
  return s;
}

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
      const std::string input = mutate(seed, rng);
      const std::string broken = run(input);
      if (!broken.empty()) FAIL_CHECK(broken << " on mutation " << i);
    }
    ++seeds;
  }
  CHECK(seeds >= 100);
}
