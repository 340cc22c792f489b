// ONNX's node tests through the CLI, as a user runs a model: every test
// the library's own runner passes (docs/onnx.md) passes here too, and none
// is wrong or crashes the process (backend_suite_cli.cpp). A refusal must
// be coded.
#include <doctest/doctest.h>

#include <map>
#include <sstream>

#include "onnx/backend_suite.hpp"
#include "support/build_paths.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

TEST_CASE("ONNX's node tests through `shapescript run`: as many pass, none wrong, none crash" *
          doctest::timeout(900)) {
  if (ss::test::backend_data_root().empty())
    return ss::test::skip("ONNX's test data (Debian's libonnx-testdata) isn't installed");
  if (std::string(ss::test::built::onnx).empty())
    return ss::test::skip("the ONNX importer wasn't built");
  const auto results =
      ss::test::run_backend_suite_cli("node", ss::test::built::onnx, ss::test::kCliPath);
  int passed = 0;
  std::map<std::string, int> refusals;
  for (const auto& r : results) {
    if (r.status == "pass") ++passed;
    if (r.status == "refused") ++refusals[r.code];
    CHECK_MESSAGE(r.status != "fail", "node/" << r.test << ": " << r.detail);
    CHECK_MESSAGE(r.status != "crash", "node/" << r.test << ": " << r.detail);
  }
  std::ostringstream codes;
  for (const auto& [code, n] : refusals) codes << " " << code << "=" << n;
  MESSAGE("node through the CLI: " << passed << " of " << results.size()
                                   << " pass; refused:" << codes.str());
  CHECK(passed >= 690);  // the library's own runner's count (docs/onnx.md)
}
