// extract_seeds CATALOG FOLDER: writes each example program of the error
// catalog to FOLDER/<code>.ss, the fuzzer's seeds for every error path.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "catalog/catalog.hpp"
#include "support/process.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: extract_seeds CATALOG FOLDER\n");
    return 2;
  }
  std::vector<std::string> problems;
  const auto entries = ss::test::parse_catalog(ss::test::read_file(argv[1]), &problems);
  for (const auto& p : problems) std::fprintf(stderr, "extract_seeds: %s\n", p.c_str());
  std::filesystem::create_directories(argv[2]);
  int written = 0;
  for (const auto& entry : entries) {
    if (!entry.example || entry.example->language != "shapescript") continue;
    std::ofstream(std::filesystem::path(argv[2]) / (entry.code + ".ss")) << entry.example->body;
    ++written;
  }
  std::printf("extract_seeds: %d programs\n", written);
  return problems.empty() && written > 0 ? 0 : 1;
}
