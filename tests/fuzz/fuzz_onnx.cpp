// libFuzzer target (the `sanitize` preset): the ONNX importer, as a host's load
// runs it up to planning: protobuf's parsing, ONNX's checker and shape
// inference, our translation, then our checker on the program it wrote.
// Invariants: a model is imported or refused with registered E20xx codes
// (never a crash or another exception), and what imports checks.
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "api/compiled.hpp"
#include "diag/codes.hpp"
#include "onnx/onnx_api.h"

extern "C" const SsOnnxApi* ss_onnx_api(unsigned abi_version);

namespace {

[[noreturn]] void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz_onnx: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const SsOnnxApi* api = ss_onnx_api(SS_ONNX_ABI_VERSION);
  if (!api) broken("the importer's table is missing");
  SsOnnxBuffer result{}, weights{};
  api->import_model(reinterpret_cast<const char*>(data), size, "", nullptr, nullptr, &result,
                    &weights);
  const std::string text(result.data ? result.data : "", result.size);
  api->free_buffer(&result);
  api->free_buffer(&weights);
  const auto out = nlohmann::json::parse(text, nullptr, false);
  if (out.is_discarded() || !out.is_object()) broken("the importer's result isn't JSON");
  for (const auto& d : out.value("diagnostics", nlohmann::json::array())) {
    const std::string code = d.value("code", "");
    if (code.rfind("E20", 0) != 0 || !ss::diag::find_code(code))
      broken("unregistered code `" + code + "`");
    if (d.value("message", "").empty()) broken(code + " without a message");
  }
  if (!out.contains("source")) return 0;  // refused, with its codes
  static spdlog::logger quiet("fuzz");    // no sinks: says nothing
  const auto compiled = ss::api::compile_text(out["source"].get<std::string>(), "model.ss", quiet);
  for (const auto& d : compiled->diagnostics)
    if (d.severity == ss::Severity::error)
      broken("an imported model doesn't check: " + d.render() + "\n" +
             out["source"].get<std::string>());
  return 0;
}
