// What the ONNX fuzz targets hold every import to: imported, or refused
// with registered E20xx codes with messages (never a crash or another
// exception), and what imports checks (our checker on the program written,
// no planning).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "api/compiled.hpp"
#include "diag/codes.hpp"
#include "onnx/onnx_api.h"

extern "C" const SsOnnxApi* ss_onnx_api(unsigned abi_version);

namespace ss::test {

[[noreturn]] inline void fuzz_broken(const char* target, const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", target, what.c_str());
  std::abort();
}

// Imports `size` bytes with the importer's JSON options (null: none).
inline void check_onnx_import(const char* target, const std::uint8_t* data, std::size_t size,
                              const char* options_json) {
  static const SsOnnxApi* api = ss_onnx_api(SS_ONNX_ABI_VERSION);
  if (!api) fuzz_broken(target, "the importer's table is missing");
  SsOnnxBuffer result{}, weights{};
  api->import_model(reinterpret_cast<const char*>(data), size, "", nullptr, options_json, &result,
                    &weights);
  const std::string text(result.data ? result.data : "", result.size);
  api->free_buffer(&result);
  api->free_buffer(&weights);
  const auto out = nlohmann::json::parse(text, nullptr, false);
  if (out.is_discarded() || !out.is_object())
    fuzz_broken(target, "the importer's result isn't JSON");
  for (const auto& d : out.value("diagnostics", nlohmann::json::array())) {
    const std::string code = d.value("code", "");
    if (code.rfind("E20", 0) != 0 || !ss::diag::find_code(code))
      fuzz_broken(target, "unregistered code `" + code + "`");
    if (d.value("message", "").empty()) fuzz_broken(target, code + " without a message");
  }
  if (!out.contains("source")) return;  // refused, with its codes
  static spdlog::logger quiet("fuzz");  // no sinks: says nothing
  const auto compiled = ss::api::compile_text(out["source"].get<std::string>(), "model.ss", quiet);
  for (const auto& d : compiled->diagnostics)
    if (d.severity == ss::Severity::error) {
      // A generic program that doesn't check: the host's load imports
      // again for sizes (onnx_engine.cpp's load_either), which must check.
      if (out.value("generic", false)) {
        nlohmann::json sized = options_json && *options_json
                                   ? nlohmann::json::parse(options_json)
                                   : nlohmann::json::object();
        sized["generic"] = false;
        return check_onnx_import(target, data, size, sized.dump().c_str());
      }
      fuzz_broken(target, "an imported model doesn't check: " + d.render() + "\n" +
                              out["source"].get<std::string>());
    }
}

}  // namespace ss::test
