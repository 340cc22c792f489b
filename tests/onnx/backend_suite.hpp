// ONNX's own backend tests (Debian's libonnx-testdata): each test folder's
// model.onnx imported and run on its test_data_set_*/input_*.pb, the
// results held to output_*.pb at ONNX's tolerances (rtol 1e-3, atol 1e-7).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "shapescript/tensor.hpp"

namespace ss::test {

struct BackendResult {
  std::string test;              // the folder's name
  std::string status;            // "pass", "refused" (a code at import or load) or "fail"
  std::string code;              // a refusal's code
  std::string detail;            // the refusal's message, or what was wrong
  std::vector<std::string> ops;  // the model's op types
};

std::string read_all(const std::filesystem::path& p);
// folder/PREFIX0.pb, PREFIX1.pb, ... while they exist.
std::vector<std::filesystem::path> numbered(const std::filesystem::path& folder,
                                            const std::string& prefix);
// A test folder's test_data_set_N folders, in order.
std::vector<std::filesystem::path> data_sets(const std::filesystem::path& folder);
// Empty when `got` matches `want` at ONNX's tolerances; else what differs.
std::string compare(const Tensor& got, const Tensor& want);

// Where Debian installs the suites; empty when libonnx-testdata isn't there.
std::string backend_data_root();
// A suite's test folders (those with a model.onnx), in order.
std::vector<std::filesystem::path> test_folders(const std::string& suite);
// Runs every test of one suite ("node", "pytorch-converted", ...), the
// importer module at `library` (empty: the default search).
std::vector<BackendResult> run_backend_suite(const std::string& suite, const std::string& library);
// The same through the CLI, as a user runs a model: each data set's inputs
// written to safetensors, `shapescript run model.onnx --inputs ... --outputs
// ...` (the importer found by SHAPESCRIPT_ONNX=library), its outputs read
// back. A run that exits with neither 0 nor a coded refusal (exit 1 with
// `error[E...]`, not E0001) is "crash".
std::vector<BackendResult> run_backend_suite_cli(const std::string& suite,
                                                 const std::string& library,
                                                 const std::string& cli);

}  // namespace ss::test
