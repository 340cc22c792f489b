#include "api/onnx_module.hpp"

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "api/module_impl.hpp"
#include "api/onnx_external_data.hpp"
#include "diag/codes.hpp"
#include "onnx/onnx_api.h"
#include "support/dynamic_library.hpp"

namespace ss::api {
namespace {

using nlohmann::json;

constexpr const char* kModuleName = "libshapescript_onnx.so";

struct Opened {
  std::shared_ptr<support::DynamicLibrary> library;
  const SsOnnxApi* api = nullptr;
  std::string why;
};

Opened open_module(const std::string& requested) {
  Opened o;
  std::string reasons;
  o.library = std::make_shared<support::DynamicLibrary>(support::DynamicLibrary::open_first(
      support::module_candidates(requested, "SHAPESCRIPT_ONNX", kModuleName), &reasons));
  if (!*o.library) {
    o.why = "can't open the ONNX importer (" + std::string(kModuleName) + "): " + reasons;
    return o;
  }
  SsOnnxEntry entry = nullptr;
  if (!o.library->load(entry, SS_ONNX_ENTRY_SYMBOL)) {
    o.why = o.library->path() + " has no " SS_ONNX_ENTRY_SYMBOL;
    return o;
  }
  o.api = entry(SS_ONNX_ABI_VERSION);
  if (!o.api)
    o.why = o.library->path() + " is from another shapescript (ONNX ABI " +
            std::to_string(SS_ONNX_ABI_VERSION) + " wanted)";
  return o;
}

// The module, opened once per path asked for (it stays mapped for the process).
const Opened& module_for(const std::string& requested) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Opened>> opened;
  std::lock_guard lock(mutex);
  auto& slot = opened[requested];
  if (!slot || !slot->api) slot = std::make_unique<Opened>(open_module(requested));
  return *slot;
}

Diagnostic missing_module(const std::string& why) {
  return diag::error(
      diag::Code::E2001, "the ONNX importer isn't available: " + why,
      "build shapescript with Debian's libonnx-dev and libprotobuf-dev (scripts/setup "
      "installs them), or point SHAPESCRIPT_ONNX at libshapescript_onnx.so");
}

std::vector<Diagnostic> diagnostics_of(const json& j) {
  std::vector<Diagnostic> out;
  if (!j.contains("diagnostics")) return out;
  for (const auto& d : j["diagnostics"]) {
    const std::string code = d.value("code", "E2002");
    const auto c = diag::find_code(code);
    std::string message = d.value("message", "");
    const std::string node = d.value("node", ""), op = d.value("op", "");
    if (!op.empty())
      message = (node.empty() ? "a `" + op + "` node" : "node `" + node + "` (" + op + ")") + ": " +
                message;
    out.push_back(diag::error(c ? *c : diag::Code::E2002, message, d.value("help", "")));
  }
  return out;
}

std::optional<DType> dtype_of(const std::string& s) {
  if (s == "f32") return DType::f32;
  if (s == "f16") return DType::f16;
  if (s == "bf16") return DType::bf16;
  if (s == "i32") return DType::i32;
  if (s == "bool") return DType::boolean;
  return std::nullopt;
}

OnnxPort port_of(const json& p) {
  OnnxPort out;
  out.name = p.value("name", "");
  out.onnx_name = p.value("onnx_name", "");
  out.dtype = dtype_of(p.value("dtype", "f32")).value_or(DType::f32);
  out.int64 = p.value("onnx_type", 0) == 7;
  out.shape = p.value("shape", std::vector<std::int64_t>{});
  out.axes = p.value("axes", std::vector<std::string>{});
  return out;
}

struct Buffers {
  const SsOnnxApi* api;
  SsOnnxBuffer a{}, b{};
  ~Buffers() {
    api->free_buffer(&a);
    api->free_buffer(&b);
  }
};

}  // namespace

bool probe_onnx_module(const std::string& requested, std::string* path, std::string* version,
                       std::string* why) {
  const Opened& o = module_for(requested);
  if (!o.api) {
    *why = o.why;
    return false;
  }
  *path = o.library->path();
  *version = o.api->library_version();
  return true;
}

OnnxTranslation translate_onnx(std::string_view bytes, const std::string& folder,
                               const OnnxOptions& options, bool generic,
                               const std::string& resolved_folder) {
  OnnxTranslation t;
  const Opened& o = module_for(options.library);
  if (!o.api) {
    t.diagnostics.push_back(missing_module(o.why));
    return t;
  }
  json options_j = {{"frozen", options.frozen},
                    {"constants", json::object()},
                    {"dims", options.dims},
                    {"shapes", options.input_shapes},
                    {"generic", generic}};
  for (const auto& [name, tensor] : options.constants) {
    std::vector<double> values;
    if (tensor.dtype() == DType::i32) {  // exactly, past float's 2^24, through any strides
      const runtime::Tensor packed = Module::Impl::to_runtime(tensor).compact();
      const auto* data = static_cast<const std::int32_t*>(packed.raw());
      values.assign(data, data + packed.size());
    } else {
      for (float f : tensor.to_floats()) values.push_back(f);
    }
    options_j["constants"][name] = {{"shape", tensor.shape()}, {"values", values}};
  }
  // A host's names that aren't UTF-8 (a frozen name, a dim, an input's)
  // are written with U+FFFD: dump() would throw out of the load otherwise.
  const std::string options_json = options_j.dump(-1, ' ', false, json::error_handler_t::replace);
  Buffers buffers{o.api};
  const ExternalDataPlace place{&options.load.files, folder, resolved_folder};
  const SsOnnxReader reader = external_data_reader(place);
  o.api->import_model(bytes.data(), bytes.size(), folder.c_str(), &reader, options_json.c_str(),
                      &buffers.a, &buffers.b);
  const json j = json::parse(std::string_view(buffers.a.data, buffers.a.size), nullptr, false);
  if (j.is_discarded()) {
    t.diagnostics.push_back(
        diag::error(diag::Code::E0001, "the ONNX importer answered with malformed JSON"));
    return t;
  }
  t.diagnostics = diagnostics_of(j);
  if (!t.diagnostics.empty()) return t;
  t.source = j.value("source", "");
  t.has_model = j.value("model", false);
  t.generic = j.value("generic", false);
  t.not_generic = j.value("not_generic", std::string());
  t.weights.assign(buffers.b.data ? buffers.b.data : "", buffers.b.size);
  for (const auto& p : j["inputs"]) t.inputs.push_back(port_of(p));
  for (const auto& p : j["outputs"]) t.outputs.push_back(port_of(p));
  return t;
}

std::vector<std::string> supported_ops(std::vector<Diagnostic>* errors,
                                       const std::string& library) {
  const Opened& o = module_for(library);
  if (!o.api) {
    if (errors) errors->push_back(missing_module(o.why));
    return {};
  }
  std::vector<std::string> out;
  std::istringstream words(o.api->supported_ops());
  for (std::string op; words >> op;) out.push_back(op);
  return out;
}

bool read_onnx_tensor(std::string_view bytes, Tensor* out, std::string* name,
                      std::vector<Diagnostic>* errors, const std::string& library) {
  const Opened& o = module_for(library);
  if (!o.api) {
    if (errors) errors->push_back(missing_module(o.why));
    return false;
  }
  Buffers buffers{o.api};
  const int rc = o.api->read_tensor(bytes.data(), bytes.size(), &buffers.a, &buffers.b);
  const json j = json::parse(std::string_view(buffers.a.data, buffers.a.size), nullptr, false);
  if (rc != 0 || j.is_discarded()) {
    if (errors) {
      auto d = j.is_discarded()
                   ? std::vector<Diagnostic>{diag::error(diag::Code::E0001, "malformed answer")}
                   : diagnostics_of(j);
      errors->insert(errors->end(), d.begin(), d.end());
    }
    return false;
  }
  if (name) *name = j.value("name", "");
  const DType dtype = dtype_of(j.value("dtype", "f32")).value_or(DType::f32);
  *out = Tensor::copy(dtype, buffers.b.data, j.value("shape", std::vector<std::int64_t>{}));
  return true;
}

}  // namespace ss::api
