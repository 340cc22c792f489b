// ONNX's backend suites under ctest: every test passes or is refused with a
// code, never a wrong answer; SS_ONNX_REPORT names a file that gets one line
// per test (docs/onnx.md is made from it by tests/onnx/make_onnx_doc.py).
// Each suite also holds its count of passing tests to the floor it has
// reached, so a translation that stops passing fails here.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>

#include "onnx/backend_suite.hpp"
#include "support/build_paths.hpp"
#include "support/skip.hpp"

namespace {

void run_suite(const std::string& suite, int floor) {
  if (ss::test::backend_data_root().empty())
    return ss::test::skip("ONNX's test data (Debian's libonnx-testdata) isn't installed");
  if (std::string(ss::test::built::onnx).empty())
    return ss::test::skip("the ONNX importer wasn't built");
  const auto results = ss::test::run_backend_suite(suite, ss::test::built::onnx);
  int passed = 0;
  std::map<std::string, int> refusals;
  for (const auto& r : results) {
    if (r.status == "pass") ++passed;
    if (r.status == "refused") ++refusals[r.code];
    CHECK_MESSAGE(r.status != "fail", suite << "/" << r.test << ": " << r.detail);
  }
  if (const char* report = std::getenv("SS_ONNX_REPORT")) {
    std::ofstream out(std::string(report) + "." + suite + ".tsv");
    for (const auto& r : results) {
      std::string ops;
      for (const auto& o : r.ops) ops += (ops.empty() ? "" : ",") + o;
      out << r.test << "\t" << r.status << "\t" << r.code << "\t" << ops << "\t" << r.detail
          << "\n";
    }
  }
  MESSAGE(suite << ": " << passed << " of " << results.size() << " pass");
  CHECK(passed >= floor);
}

}  // namespace

TEST_CASE("ONNX's node tests pass or are refused with a code" * doctest::timeout(600)) {
  run_suite("node", 684);
}
TEST_CASE("ONNX's pytorch-converted tests pass or are refused with a code" *
          doctest::timeout(600)) {
  run_suite("pytorch-converted", 82);
}
TEST_CASE("ONNX's pytorch-operator tests pass or are refused with a code" * doctest::timeout(600)) {
  run_suite("pytorch-operator", 30);
}
TEST_CASE("ONNX's simple tests pass or are refused with a code" * doctest::timeout(600)) {
  run_suite("simple", 7);
}
