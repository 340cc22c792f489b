// ONNX's own backend tests (Debian's libonnx-testdata): each test folder's
// model.onnx imported and run on its test_data_set_*/input_*.pb, the
// results held to output_*.pb at ONNX's tolerances (rtol 1e-3, atol 1e-7).
#pragma once

#include <string>
#include <vector>

namespace ss::test {

struct BackendResult {
  std::string test;              // the folder's name
  std::string status;            // "pass", "refused" (a code at import or load) or "fail"
  std::string code;              // a refusal's code
  std::string detail;            // the refusal's message, or what was wrong
  std::vector<std::string> ops;  // the model's op types
};

// Where Debian installs the suites; empty when libonnx-testdata isn't there.
std::string backend_data_root();
// Runs every test of one suite ("node", "pytorch-converted", ...), the
// importer module at `library` (empty: the default search).
std::vector<BackendResult> run_backend_suite(const std::string& suite, const std::string& library);

}  // namespace ss::test
