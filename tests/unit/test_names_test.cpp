// ctest runs each doctest case by name (doctest_discover_tests), and CMake
// cuts a name at a semicolon: the halves then match no case, and ctest
// counts a run of nothing as passed. So no case may have one in its name.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "support/build_paths.hpp"

TEST_CASE("no test case's name holds a semicolon, which would make ctest run nothing for it") {
  const std::regex name(R"re(TEST_CASE\(\s*"((?:[^"\\]|\\.)*)")re");
  int cases = 0;
  for (const auto& f : std::filesystem::recursive_directory_iterator(
           std::string(ss::test::built::source_dir) + "/tests")) {
    if (f.path().extension() != ".cpp") continue;
    std::ifstream in(f.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator it(s.begin(), s.end(), name), end; it != end; ++it) {
      ++cases;
      CHECK_MESSAGE((*it)[1].str().find(';') == std::string::npos, f.path().string()
                                                                       << ": " << (*it)[1].str());
    }
  }
  CHECK(cases > 300);
}
