// The module's C table (onnx_api.h): every entry catches what the importer
// throws and answers with JSON, so no exception crosses into the core.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "onnx/common/version.h"
#include "onnx/import_error.hpp"
#include "onnx/import_model.hpp"
#include "onnx/onnx_api.h"
#include "onnx/tensors.hpp"
#include "onnx/translator.hpp"

namespace ss::onnx_import {
namespace {

using nlohmann::json;

void put(SsOnnxBuffer* out, const char* bytes, std::size_t size) noexcept {
  out->data = static_cast<char*>(std::malloc(size ? size : 1));
  out->size = out->data ? size : 0;
  if (out->data && size) std::memcpy(out->data, bytes, size);
}

void put(SsOnnxBuffer* out, const std::string& bytes) {
  put(out, bytes.data(), bytes.size());
}

// JSON text whatever the model's strings hold: a name or message that
// isn't UTF-8 (a model's bytes are anyone's) is written with U+FFFD, where
// dump() would throw out of the C table and end the host (found by
// fuzz_onnx).
std::string text(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// What an entry answers when even its error couldn't be made (memory).
void failed(SsOnnxBuffer* result) noexcept {
  static const char kFailed[] =
      R"({"diagnostics":[{"code":"E2002","message":"the ONNX importer ran out of memory","node":"","op":"","help":""}]})";
  put(result, kFailed, sizeof kFailed - 1);
}

json diagnostic(const ImportError& e) {
  return {
      {"code", e.code}, {"message", e.message}, {"node", e.node}, {"op", e.op}, {"help", e.help}};
}

json port(const Port& p) {
  return {{"name", p.name},           {"onnx_name", p.onnx_name}, {"dtype", p.dtype},
          {"onnx_type", p.onnx_type}, {"shape", p.shape},         {"axes", p.axes}};
}

// The parameters in safetensors (float32 each), sorted by name as the
// format's header is.
std::string safetensors(const std::map<std::string, Constant>& params) {
  json header = json::object();
  std::string data;
  for (const auto& [name, c] : params) {
    Constant f = c;
    f.onnx_type = onnx::TensorProto::FLOAT;
    const std::string bytes = element_bytes(f, "initializer `" + name + "`");
    header[name] = {{"dtype", "F32"},
                    {"shape", c.shape},
                    {"data_offsets", {data.size(), data.size() + bytes.size()}}};
    data += bytes;
  }
  std::string h = text(header);
  while ((h.size() + 8) % 8) h += ' ';
  std::string out(8, '\0');
  const std::uint64_t n = h.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + h + data;
}

int import_model_or_throw(const char* bytes, size_t size, const char* folder,
                          const SsOnnxReader* reader, const char* options_json,
                          SsOnnxBuffer* result, SsOnnxBuffer* weights) {
  json out;
  try {
    std::set<std::string> frozen;
    std::map<std::string, Constant> constants;
    std::map<std::string, std::int64_t> dims;
    if (options_json && *options_json) {
      const json options = json::parse(options_json);
      if (options.contains("frozen"))
        for (const auto& name : options["frozen"]) frozen.insert(name.get<std::string>());
      if (options.contains("dims"))
        dims = options["dims"].get<std::map<std::string, std::int64_t>>();
      if (options.contains("constants"))
        for (const auto& [name, c] : options["constants"].items()) {
          Constant k;
          k.shape = c["shape"].get<std::vector<std::int64_t>>();
          k.floats = c["values"].get<std::vector<double>>();
          constants[name] = std::move(k);
        }
    }
    // Generic first (a symbolic dim a generic axis), unless asked not to;
    // where a dim can't stay generic, the import made for given sizes.
    const bool want_generic =
        !options_json || !*options_json || json::parse(options_json).value("generic", true);
    std::unique_ptr<onnx::ModelProto> model;
    std::unique_ptr<Translator> translator;
    auto translate = [&](bool generic) {
      Symbolic symbolic;
      symbolic.generic = generic;
      model = std::make_unique<onnx::ModelProto>(
          read_model(std::string(bytes, size), folder ? folder : "", reader, dims, &symbolic));
      translator =
          std::make_unique<Translator>(*model, folder ? folder : "", frozen, constants, symbolic);
      translator->run();
    };
    std::string not_generic;
    if (want_generic) {
      try {
        translate(true);
      } catch (const ImportError& e) {
        if (!e.generic) throw;
        not_generic = e.message + (e.node.empty() ? "" : " (node `" + e.node + "`, " + e.op + ")");
        translator.reset();
      }
    }
    if (!translator) {
      try {
        translate(false);
      } catch (ImportError& e) {
        if (!not_generic.empty() && e.code == "E2007")
          e.help = "its axes can't stay generic here (" + not_generic + "): " + e.help;
        throw;
      }
    }
    Translator& t = *translator;
    out["generic"] = not_generic.empty() && want_generic;
    if (!not_generic.empty()) out["not_generic"] = not_generic;
    out["source"] = t.source();
    out["model"] = t.has_model();
    out["inputs"] = json::array();
    for (const auto& p : t.inputs()) out["inputs"].push_back(port(p));
    out["outputs"] = json::array();
    for (const auto& p : t.outputs()) out["outputs"].push_back(port(p));
    out["diagnostics"] = json::array();
    put(weights, safetensors(t.params()));
    put(result, text(out));
    return 0;
  } catch (const ImportError& e) {
    out = {{"diagnostics", {diagnostic(e)}}};
  } catch (const std::exception& e) {
    out = {{"diagnostics",
            {diagnostic(
                {"E2002", std::string("ONNX can't read the model: ") + e.what(), {}, {}, {}})}}};
  }
  put(weights, "");
  put(result, text(out));
  return 1;
}

int read_tensor_or_throw(const char* bytes, size_t size, SsOnnxBuffer* result, SsOnnxBuffer* data) {
  json out;
  try {
    onnx::TensorProto t;
    if (!t.ParseFromArray(bytes, static_cast<int>(size)))
      fail("E2002", "the bytes aren't an ONNX tensor (protobuf's parse failed)");
    const Constant c = read_constant(t, "");
    const std::string dtype = ss_dtype(c.onnx_type);
    if (dtype.empty())
      fail("E2006", "tensor `" + t.name() + "` is " + onnx_type_name(c.onnx_type) +
                        ", an element type shapescript doesn't have");
    put(data, element_bytes(c, "tensor `" + t.name() + "`"));
    out = {{"name", t.name()}, {"dtype", dtype}, {"onnx_type", c.onnx_type}, {"shape", c.shape}};
    put(result, text(out));
    return 0;
  } catch (const ImportError& e) {
    out = {{"diagnostics", {diagnostic(e)}}};
  } catch (const std::exception& e) {
    out = {
        {"diagnostics",
         {diagnostic({"E2002", std::string("can't read the tensor: ") + e.what(), {}, {}, {}})}}};
  }
  put(data, "");
  put(result, text(out));
  return 1;
}

void free_buffer(SsOnnxBuffer* b) noexcept {
  if (!b) return;
  std::free(b->data);
  b->data = nullptr;
  b->size = 0;
}

// The table's entries: nothing thrown crosses into the core.
int import_model(const char* bytes, size_t size, const char* folder, const SsOnnxReader* reader,
                 const char* options_json, SsOnnxBuffer* result, SsOnnxBuffer* weights) noexcept {
  try {
    return import_model_or_throw(bytes, size, folder, reader, options_json, result, weights);
  } catch (...) {  // the buffers are zeroed or put by the entry: freed, then answered
    free_buffer(weights);
    free_buffer(result);
    put(weights, "", 0);
    failed(result);
    return 1;
  }
}

int read_tensor(const char* bytes, size_t size, SsOnnxBuffer* result, SsOnnxBuffer* data) noexcept {
  try {
    return read_tensor_or_throw(bytes, size, result, data);
  } catch (...) {
    free_buffer(data);
    free_buffer(result);
    put(data, "", 0);
    failed(result);
    return 1;
  }
}

const char* library_version() {
  static const std::string v = std::string("ONNX ") + ONNX_NAMESPACE::LAST_RELEASE_VERSION +
                               ", protobuf " + std::to_string(GOOGLE_PROTOBUF_VERSION / 1000000) +
                               "." + std::to_string(GOOGLE_PROTOBUF_VERSION / 1000 % 1000) + "." +
                               std::to_string(GOOGLE_PROTOBUF_VERSION % 1000);
  return v.c_str();
}

const char* ops_text() {
  static const std::string text = [] {
    std::string s;
    for (const auto& op : supported_ops()) s += (s.empty() ? "" : " ") + op;
    return s;
  }();
  return text.c_str();
}

const SsOnnxApi kApi = {library_version, import_model, read_tensor, free_buffer, ops_text};

}  // namespace
}  // namespace ss::onnx_import

extern "C" __attribute__((visibility("default"))) const SsOnnxApi* ss_onnx_api(
    unsigned abi_version) {
  return abi_version == SS_ONNX_ABI_VERSION ? &ss::onnx_import::kApi : nullptr;
}
