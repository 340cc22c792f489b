// Engine's ONNX entry points: translate (the importer module), then load
// the program as any other, its weights as the `Onnx` model value.
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "api/engine_impl.hpp"
#include "api/module_impl.hpp"
#include "api/onnx_module.hpp"
#include "diag/codes.hpp"
#include "runtime/data/data_error.hpp"
#include "runtime/data/files.hpp"
#include "runtime/data/safetensors.hpp"

namespace ss {
namespace {

// The node a line of the generated program translates: its comment
// (`  # name: Op`).
std::string node_of_line(const std::string& source, std::uint32_t line) {
  std::istringstream in(source);
  std::string text;
  for (std::uint32_t i = 1; std::getline(in, text); ++i)
    if (i == line) {
      const auto hash = text.rfind("  # ");
      return hash == std::string::npos ? std::string() : text.substr(hash + 4);
    }
  return {};
}

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string program_name(const std::string& path) {
  std::string name = path.empty() ? "model.onnx" : path;
  if (name.size() > 5 && name.substr(name.size() - 5) == ".onnx") name.resize(name.size() - 5);
  return name + ".ss";
}

OnnxModel load_translation(const Engine& engine, OnnxTranslation t, const std::string& path,
                           const OnnxOptions& options) {
  OnnxModel out;
  out.translation = std::move(t);
  if (!out.translation) {
    out.diagnostics = out.translation.diagnostics;
    return out;
  }
  std::string source = out.translation.source;
  if (!options.extra_source.empty()) source += "\n" + options.extra_source + "\n";
  const std::string name = program_name(path);
  out.module = engine.load_source(source, name, options.load);
  if (!out.module) {
    for (Diagnostic d : out.module.diagnostics()) {
      if (d.location.file == name && d.location.line) {
        const std::string node = node_of_line(source, d.location.line);
        if (!node.empty()) d.notes.push_back("in the translation of ONNX node " + node);
      }
      out.diagnostics.push_back(std::move(d));
    }
    return out;
  }
  if (out.translation.has_model) {
    std::vector<Diagnostic> errors;
    out.weights = out.module.load_bytes("Onnx", out.translation.weights, {}, &errors);
    out.diagnostics.insert(out.diagnostics.end(), errors.begin(), errors.end());
  }
  return out;
}

}  // namespace

std::vector<Arg> OnnxModel::arguments(const std::vector<Tensor>& inputs) const {
  std::vector<Arg> args;
  if (weights) args.emplace_back(weights);
  for (const auto& t : inputs) args.emplace_back(t);
  return args;
}

std::vector<std::string> onnx_supported_ops(std::vector<Diagnostic>* errors,
                                            const std::string& library) {
  return api::supported_ops(errors, library);
}

bool read_tensor_file(const std::string& path, std::map<std::string, Tensor>* out,
                      std::vector<Diagnostic>* errors) {
  try {
    for (const auto& [name, t] : runtime::read_safetensors(path)) {
      const runtime::Tensor packed = t.compact();
      (*out)[name] = Tensor::copy(static_cast<DType>(t.dtype()), packed.raw(), t.shape());
    }
    return true;
  } catch (const runtime::DataError& e) {
    if (errors) errors->push_back(diag::error(e.code, e.what(), e.help));
    return false;
  }
}

bool write_tensor_file(const std::string& path, const std::map<std::string, Tensor>& tensors,
                       std::vector<Diagnostic>* errors, const std::vector<std::string>& as_int64) {
  try {
    std::map<std::string, runtime::Tensor> named;
    std::map<std::string, runtime::Tensor> widened;  // int64 outputs, as pairs of int32 words
    for (const auto& [name, t] : tensors) {
      const bool wide = std::find(as_int64.begin(), as_int64.end(), name) != as_int64.end();
      if (!wide || t.dtype() != DType::i32) {
        named[name] = Module::Impl::to_runtime(t);
        continue;
      }
      std::vector<std::int32_t> words;
      const runtime::Tensor packed = Module::Impl::to_runtime(t).compact();
      const auto* ints = static_cast<const std::int32_t*>(packed.raw());
      for (std::int64_t i = 0; i < packed.size(); ++i) {
        const std::int64_t v = ints[i];
        words.push_back(static_cast<std::int32_t>(static_cast<std::uint32_t>(v & 0xffffffff)));
        words.push_back(
            static_cast<std::int32_t>(static_cast<std::uint32_t>((v >> 32) & 0xffffffff)));
      }
      std::vector<std::int64_t> shape = t.shape();
      shape.push_back(2);
      named[name] = Module::Impl::to_runtime(Tensor::of(words, shape)).clone();
      widened[name] = named[name];
    }
    runtime::write_safetensors(path, named, {}, {},
                               [&](const std::string& name) { return widened.count(name) > 0; });
    return true;
  } catch (const runtime::DataError& e) {
    if (errors) errors->push_back(diag::error(e.code, e.what(), e.help));
    return false;
  }
}

std::vector<Tensor> OnnxModel::results(const CallResult& result) {
  // Host tensors alone come back as outputs; with the weights, as values
  // (a tuple's items for several outputs).
  std::vector<Tensor> out;
  if (result.values.empty()) return result.outputs;
  if (result.values.size() == 1 && result.values[0].kind() == Value::Kind::tuple)
    for (const auto& v : result.values[0].items()) out.push_back(v.tensor());
  else
    for (const auto& v : result.values) out.push_back(v.tensor());
  return out;
}

bool read_onnx_tensor(std::string_view bytes, Tensor* out, std::string* name,
                      std::vector<Diagnostic>* errors, const std::string& library) {
  return api::read_onnx_tensor(bytes, out, name, errors, library);
}

OnnxTranslation Engine::translate_onnx(std::string_view bytes, const std::string& folder,
                                       const OnnxOptions& options) const {
  if (!impl_) {
    OnnxTranslation t;
    t.diagnostics.push_back(api::empty_engine());
    return t;
  }
  return api::translate_onnx(bytes, folder, options);
}

namespace {

// Generic first; where that program doesn't check (a size the language
// can't keep generic), the import made for OnnxOptions::dims's sizes.
OnnxModel refused(Diagnostic d) {
  OnnxModel out;
  out.diagnostics.push_back(std::move(d));
  return out;
}

OnnxModel load_either(const Engine& engine, std::string_view bytes, const std::string& folder,
                      const std::string& resolved_folder, const std::string& path,
                      const OnnxOptions& options) {
  OnnxTranslation generic = api::translate_onnx(bytes, folder, options, true, resolved_folder);
  if (!generic || !generic.generic)
    return load_translation(engine, std::move(generic), path, options);
  const auto lines =
      static_cast<std::uint32_t>(std::count(generic.source.begin(), generic.source.end(), '\n'));
  OnnxModel m = load_translation(engine, generic, path, options);
  if (m) return m;
  // An error in the host's extra_source is its own to report, whatever sizes.
  const std::string name = program_name(path);
  const auto in_extra = [&](const Diagnostic& d) {
    return d.location.file == name && d.location.line > lines + 1;
  };
  if (!m.diagnostics.empty() && in_extra(m.diagnostics.front())) return m;
  OnnxModel sized = load_translation(
      engine, api::translate_onnx(bytes, folder, options, false, resolved_folder), path, options);
  if (!sized && !sized.diagnostics.empty() && !m.diagnostics.empty())
    sized.diagnostics.front().notes.push_back("with generic axes, the program didn't check: " +
                                              m.diagnostics.front().message);
  return sized;
}

}  // namespace

OnnxModel Engine::load_onnx(const std::string& path, const OnnxOptions& options) const {
  if (!impl_) return refused(api::empty_engine());
  // The model's file goes through the host's FileAccess, as a program's does.
  std::string bytes;
  try {
    bytes = runtime::read_bytes(options.load.files, path);
  } catch (const runtime::DataError& e) {
    return refused(e.code == diag::Code::E1707 ? diag::error(e.code, e.what(), e.help)
                                               : diag::error(diag::Code::E2002, e.what()));
  }
  // The folder of its resolved path: where a Hugging Face cache's links lead.
  std::string resolved;
  if (!options.load.files.read)
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      resolved = folder_of(real);
      std::free(real);
    }
  return load_either(*this, bytes, folder_of(path), resolved, path, options);
}

OnnxModel Engine::load_onnx_bytes(std::string_view bytes, const OnnxOptions& options) const {
  if (!impl_) return refused(api::empty_engine());
  return load_either(*this, bytes, "", "", "", options);
}

}  // namespace ss
