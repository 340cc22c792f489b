// The module's C table (onnx_api.h): every entry catches what the importer
// throws and answers with JSON, so no exception crosses into the core.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
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

// A generic translation made again with the other set of stand-in sizes
// (open_axes.cpp) must write the same program: else a stand-in leaked into
// a number the text doesn't write back as its axis (a size less one, a
// quotient), and the program isn't generic.
void same_with_other_stand_ins(const Translator& first, const Translator& second) {
  bool same = first.source() == second.source() &&
              first.inputs().size() == second.inputs().size() &&
              first.outputs().size() == second.outputs().size();
  // A port's generic axes are the same names; its fixed ones the same sizes.
  const auto alike = [](const Port& a, const Port& b) {
    if (a.name != b.name || a.onnx_type != b.onnx_type || a.axes != b.axes) return false;
    for (std::size_t k = 0; k < a.shape.size(); ++k)
      if (a.axes[k].empty() && a.shape[k] != b.shape[k]) return false;
    return a.shape.size() == b.shape.size();
  };
  for (std::size_t i = 0; same && i < first.inputs().size(); ++i)
    same = alike(first.inputs()[i], second.inputs()[i]);
  for (std::size_t i = 0; same && i < first.outputs().size(); ++i)
    same = alike(first.outputs()[i], second.outputs()[i]);
  // A parameter (a folded float tensor) holds no stand-in either.
  same = same && first.params().size() == second.params().size();
  for (auto a = first.params().begin(), b = second.params().begin();
       same && a != first.params().end(); ++a, ++b)
    same = a->first == b->first && a->second.shape == b->second.shape &&
           a->second.floats == b->second.floats && a->second.ints == b->second.ints;
  if (!same)
    throw ImportError{"E2007",
                      "a size the model leaves open flows into a number the program can't keep "
                      "generic",
                      {},
                      {},
                      {},
                      true};
}

int import_model_or_throw(const char* bytes, size_t size, const char* folder,
                          const SsOnnxReader* reader, const char* options_json,
                          SsOnnxBuffer* result, SsOnnxBuffer* weights) {
  json out;
  try {
    std::set<std::string> frozen;
    std::map<std::string, Constant> constants;
    SizesGiven given;
    bool want_generic = true;
    if (options_json && *options_json) {
      const json options = json::parse(options_json);
      if (options.contains("frozen"))
        for (const auto& name : options["frozen"]) frozen.insert(name.get<std::string>());
      if (options.contains("dims"))
        given.dims = options["dims"].get<std::map<std::string, std::int64_t>>();
      if (options.contains("shapes"))
        given.shapes = options["shapes"].get<std::map<std::string, std::vector<std::int64_t>>>();
      if (options.contains("constants"))
        for (const auto& [name, c] : options["constants"].items()) {
          Constant k;
          k.shape = c["shape"].get<std::vector<std::int64_t>>();
          k.floats = c["values"].get<std::vector<double>>();
          constants[name] = std::move(k);
        }
      want_generic = options.value("generic", true);
    }
    // Sizes given (dims, or the inputs' shapes): the import made for them
    // first, its errors the ones reported. Then, as without sizes, a generic
    // attempt (each open axis a generic axis of the program, one import for
    // every size), kept where it succeeds; one that fails for any reason
    // falls back to the sized import. Stand-in sizes never reach ONNX's
    // data propagation (import_model.cpp runs none).
    std::unique_ptr<onnx::ModelProto> model;
    std::unique_ptr<Translator> translator;
    auto translate = [&](bool generic, int stand_ins = 0) {
      Symbolic symbolic;
      symbolic.generic = generic;
      symbolic.stand_ins = stand_ins;
      auto m = std::make_unique<onnx::ModelProto>(
          read_model(std::string(bytes, size), folder ? folder : "", reader, given, &symbolic));
      auto t = std::make_unique<Translator>(*m, folder ? folder : "", frozen, constants, symbolic);
      t->run();
      model = std::move(m);
      translator = std::move(t);
    };
    if (given.any()) translate(false);
    std::string not_generic;
    std::optional<ImportError> generic_error;
    if (want_generic) {
      std::unique_ptr<onnx::ModelProto> sized_model = std::move(model);
      std::unique_ptr<Translator> sized = std::move(translator);
      try {
        translate(true, 1);
        const std::unique_ptr<onnx::ModelProto> other_model = std::move(model);
        const std::unique_ptr<Translator> other = std::move(translator);
        translate(true, 0);
        same_with_other_stand_ins(*translator, *other);
      } catch (const ImportError& e) {
        not_generic = e.message + (e.node.empty() ? "" : " (node `" + e.node + "`, " + e.op + ")");
        if (!e.generic) generic_error = e;
      } catch (const std::exception& e) {
        not_generic = std::string("ONNX can't read the model: ") + e.what();
        generic_error = ImportError{"E2002", not_generic, {}, {}, {}};
      }
      if (!not_generic.empty()) {  // the sized import, where there is one
        model = std::move(sized_model);
        translator = std::move(sized);
      }
    }
    if (!translator) {
      try {
        translate(false);
      } catch (ImportError& e) {
        // Without sizes, the sized import stops at the first open axis: a
        // generic attempt's own error says more, unless the axes themselves
        // kept it from being generic.
        if (e.missing_size && generic_error && generic_error->code != "E2007" &&
            generic_error->code != "E2008")
          throw *generic_error;
        if (!not_generic.empty() && e.code == "E2007")
          e.help = "its axes can't stay generic here (" + not_generic + "): " + e.help;
        throw;
      }
    }
    Translator& t = *translator;
    out["generic"] = not_generic.empty() && want_generic;  // else the sized import
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
