// What a host passes with an ONNX model, checked: frozen names the graph
// lacks (E2011, never ignored), the C API's arrays given a count but no
// items (E1612), and an error in the host's extra source reported with its
// own code rather than as the sized import's E2007.
#include <doctest/doctest.h>

#include <string>

#include "onnx/importer.hpp"
#include "shapescript/shapescript.h"
#include "shapescript/shapescript.hpp"

namespace {

using ss::test::have_importer;
using ss::test::test_model;

ss::OnnxOptions options() {
  return ss::test::importer_options();
}

std::string first_code(const std::vector<ss::Diagnostic>& ds) {
  return ds.empty() ? std::string("(none)") : ds[0].code;
}

}  // namespace

TEST_CASE("a frozen name the graph has no initializer of is E2011, with the name meant") {
  if (!have_importer()) return;
  const ss::Engine engine;
  ss::OnnxOptions o = options();
  o.frozen = {"w_fc"};
  CHECK(engine.load_onnx(test_model("small_cnn.onnx"), o));  // the graph's own name
  o.frozen = {"w_fcc"};                                      // a typo
  auto m = engine.load_onnx(test_model("small_cnn.onnx"), o);
  REQUIRE_FALSE(m);
  CHECK(first_code(m.diagnostics) == "E2011");
  CHECK(m.diagnostics[0].message.find("`w_fcc`") != std::string::npos);
  CHECK(m.diagnostics[0].help.find("`w_fc`") != std::string::npos);  // some initializers listed
}

TEST_CASE("an error in extra_source keeps its own code, whatever sizes the import tried") {
  if (!have_importer()) return;
  const ss::Engine engine;
  ss::OnnxOptions o = options();
  // relu_batch.onnx has a symbolic batch axis: its generic program checks,
  // the extra source doesn't.
  o.extra_source = "fn loss(m: Onnx) -> [] = undefined_name\n";
  const auto m = engine.load_onnx(test_model("relu_batch.onnx"), o);
  REQUIRE_FALSE(m);
  CHECK(first_code(m.diagnostics) != "E2007");
  CHECK(first_code(m.diagnostics).substr(0, 2) == "E0");  // a checker's code
}

TEST_CASE("ss_onnx_options with a count and a NULL array is E1612, never read") {
  if (!have_importer()) return;
  ss_engine* engine = ss_engine_new(nullptr, nullptr);
  REQUIRE(engine);
  ss_onnx_options o = ss_onnx_options_default();
  o.library = ss::test::built::onnx;
  const std::string path = test_model("small_cnn.onnx");
  const auto code = [&] {
    ss_status* status = nullptr;
    ss_module* m = ss_engine_load_onnx(engine, path.c_str(), &o, nullptr, nullptr, &status);
    std::string c = status ? ss_status_code(status) : "(none)";
    ss_status_free(status);
    ss_module_free(m);
    return c;
  };
  CHECK(code() == "(none)");
  o.frozen_count = 3;  // and frozen NULL
  CHECK(code() == "E1612");
  const char* names[] = {"w_fc", nullptr};
  o.frozen = names;
  o.frozen_count = 2;  // a NULL item
  CHECK(code() == "E1612");
  o.frozen_count = 1;
  CHECK(code() == "(none)");
  const char* typo[] = {"w_fcc"};
  o.frozen = typo;
  CHECK(code() == "E2011");
  o.frozen_count = 0;
  o.dim_count = 1;  // names and sizes NULL
  CHECK(code() == "E1612");
  ss_engine_free(engine);
}
