// `shapescript import model.onnx -o model.ss`: an ONNX model translated to
// shapescript (docs/onnx.md), written beside its weights (model.safetensors,
// when the graph has float initializers) for a person to read and edit.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "shapescript/shapescript.hpp"

namespace ss::cli {
namespace {

std::string with_extension(const std::string& path, const std::string& extension) {
  const auto slash = path.rfind('/');
  const auto dot = path.rfind('.');
  const bool has = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return (has ? path.substr(0, dot) : path) + extension;
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int report(const std::vector<Diagnostic>& diagnostics, const Options& options) {
  for (const auto& d : diagnostics) std::cerr << d.render({.color = options.color});
  return kFailed;
}

}  // namespace

int run_import(const std::vector<std::string>& words, const Options& options) {
  if (words.size() != 1)
    return usage_error("`import` takes one model: shapescript import model.onnx -o model.ss");
  if (options.output.empty())
    return usage_error("`import` needs `-o FILE.ss`, where the program goes");
  const std::string& path = words[0];
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "error: can't read `" << path << "`\n";
    return kFailed;
  }
  std::stringstream bytes;
  bytes << in.rdbuf();
  const auto slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : path.substr(0, slash);
  OnnxOptions onnx;
  onnx.dims = options.dims;  // the graph's symbolic dims, by its names
  onnx.frozen = options.frozen;
  OnnxTranslation t = Engine().translate_onnx(bytes.str(), folder, onnx);
  if (!t) return report(t.diagnostics, options);
  std::string source = t.source;
  const std::string weights = with_extension(options.output, ".safetensors");
  if (t.has_model)
    source = "# Its weights: " + base_name(weights) + " (`m: Onnx = load(\"" + base_name(weights) +
             "\")`).\n" + source;
  {
    std::ofstream out(options.output, std::ios::binary);
    out << source;
    if (!out) {
      std::cerr << "error: can't write `" << options.output << "`\n";
      return kFailed;
    }
  }
  if (t.has_model) {
    std::ofstream out(weights, std::ios::binary);
    out << t.weights;
    if (!out) {
      std::cerr << "error: can't write `" << weights << "`\n";
      return kFailed;
    }
  }
  std::cout << "wrote " << options.output << (t.has_model ? " and " + weights : std::string())
            << "\n";
  return kOk;
}

int run_onnx(const std::string& path, const Options& options) {
  OnnxOptions onnx;
  onnx.dims = options.dims;  // the graph's symbolic dims, by its names
  onnx.frozen = options.frozen;
  EngineOptions engine_options;
  engine_options.executor = options.fast ? Executor::fast : Executor::reference;
  engine_options.threads = options.threads;
  engine_options.code_cache = code_cache(options);
  Engine engine(engine_options);
  std::map<std::string, Tensor> given;
  std::vector<Diagnostic> errors;
  if (!options.inputs.empty() && !read_tensor_file(options.inputs, &given, &errors))
    return report(errors, options);
  // The inputs' shapes size the model's open axes: the import made for
  // them (OnnxOptions::input_shapes).
  for (const auto& [name, t] : given) onnx.input_shapes[name] = t.shape();
  OnnxModel model = engine.load_onnx(path, onnx);
  // A size the model computes from an input's values (a Reshape's shape, a
  // Slice's bounds, TopK's k, a Resize's scales): the run knows them, so
  // the translation is made again with them as constants.
  if (!model && !model.diagnostics.empty() && model.diagnostics[0].code == "E2007") {
    for (const auto& [name, t] : given)
      if (t.dtype() != DType::f32 || t.size() <= 8) onnx.constants[name] = t;
    if (!onnx.constants.empty())
      if (OnnxModel again = engine.load_onnx(path, onnx)) model = std::move(again);
  }
  if (!model) return report(model.diagnostics, options);
  std::vector<Tensor> inputs;
  for (const auto& port : model.translation.inputs) {
    auto it = given.find(port.onnx_name);
    if (it == given.end()) {
      std::cerr << "error: `" << port.onnx_name << "`, an input of the model, isn't in "
                << (options.inputs.empty()
                        ? std::string("the inputs (give them with --inputs FILE.safetensors)")
                        : "`" + options.inputs + "`")
                << "\n";
      return kFailed;
    }
    inputs.push_back(it->second);
  }
  const CallResult result = model.module.call("forward", model.arguments(inputs));
  if (!result) return report(result.diagnostics, options);
  const std::vector<Tensor> got = OnnxModel::results(result);
  std::map<std::string, Tensor> named;
  std::vector<std::string> int64;  // written back as the model's int64
  for (std::size_t i = 0; i < got.size() && i < model.translation.outputs.size(); ++i) {
    named[model.translation.outputs[i].onnx_name] = got[i];
    if (model.translation.outputs[i].int64) int64.push_back(model.translation.outputs[i].onnx_name);
  }
  if (!options.outputs.empty()) {
    if (!write_tensor_file(options.outputs, named, &errors, int64)) return report(errors, options);
    std::cout << "wrote " << options.outputs << "\n";
    return kOk;
  }
  for (const auto& [name, t] : named) {
    std::cout << name << " "
              << "[";
    for (std::size_t i = 0; i < t.shape().size(); ++i) std::cout << (i ? " " : "") << t.shape()[i];
    std::cout << "]:";
    const auto values = t.to_floats();
    for (std::size_t i = 0; i < values.size() && i < 16; ++i) std::cout << " " << values[i];
    if (values.size() > 16) std::cout << " ...";
    std::cout << "\n";
  }
  return kOk;
}

}  // namespace ss::cli
