#include "onnx/backend_suite.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "shapescript/engine.hpp"

namespace ss::test {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

// The op types of a model, read back from the generated program's comments.
std::vector<std::string> ops_of(const std::string& source) {
  std::set<std::string> ops;
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line)) {
    const auto hash = line.rfind("  # ");
    if (hash == std::string::npos) continue;
    const auto colon = line.rfind(": ");
    if (colon != std::string::npos && colon > hash) ops.insert(line.substr(colon + 2));
  }
  return {ops.begin(), ops.end()};
}

}  // namespace

std::vector<fs::path> numbered(const fs::path& folder, const std::string& prefix) {
  std::vector<fs::path> out;
  for (int i = 0;; ++i) {
    const fs::path p = folder / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    out.push_back(p);
  }
  return out;
}

std::vector<fs::path> data_sets(const fs::path& folder) {
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(e.path());
  std::sort(sets.begin(), sets.end());
  return sets;
}

std::string compare(const Tensor& got, const Tensor& want) {
  if (got.dtype() != want.dtype()) return "element type differs";
  if (got.shape() != want.shape()) return "shape differs";
  const std::vector<float> g = got.to_floats(), w = want.to_floats();
  const bool exact = want.dtype() == DType::i32 || want.dtype() == DType::boolean;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double a = g[i], b = w[i];
    if (std::isnan(b) && std::isnan(a)) continue;
    if (exact ? a != b : !(std::fabs(a - b) <= 1e-7 + 1e-3 * std::fabs(b))) {
      std::ostringstream s;
      s << "element " << i << " is " << a << ", expected " << b;
      return s.str();
    }
  }
  return {};
}

namespace {

// What a host knowing them at load would give (OnnxOptions::constants):
// a test's integer inputs and, but for its first (the data), those of a few
// elements (a Resize's scales, a Pad's value, a OneHot's depth), from its
// first data set.
std::map<std::string, Tensor> integer_inputs(const fs::path& folder, const std::string& library) {
  std::map<std::string, Tensor> out;
  int k = 0;
  for (const auto& p : numbered(folder / "test_data_set_0", "input_")) {
    Tensor t;
    std::string name;
    const bool first = k++ == 0;
    if (read_onnx_tensor(read_all(p), &t, &name, nullptr, library) && !name.empty() &&
        (t.dtype() == DType::i32 || t.size() == 1 || (!first && t.size() <= 8)))
      out[name] = t;
  }
  return out;
}

BackendResult run_one(const Engine& engine, const fs::path& folder, const std::string& library) {
  BackendResult r;
  r.test = folder.filename().string();
  OnnxOptions options;
  options.library = library;
  OnnxModel model = engine.load_onnx((folder / "model.onnx").string(), options);
  if (!model && !model.diagnostics.empty() && model.diagnostics[0].code == "E2007") {
    options.constants = integer_inputs(folder, library);
    if (!options.constants.empty()) {
      model = engine.load_onnx((folder / "model.onnx").string(), options);
      if (model) r.detail = "integer inputs given at load";
    }
  }
  r.ops = ops_of(model.translation.source);
  if (!model) {
    r.status = "refused";
    const Diagnostic& d = model.diagnostics.empty() ? Diagnostic{} : model.diagnostics.front();
    r.code = d.code;
    r.detail = d.message;
    if (r.code.empty() || r.code == "E0001") {
      r.status = "fail";
      r.detail = "load failed: " + d.message;
    }
    return r;
  }
  for (const auto& set : data_sets(folder)) {
    std::vector<Tensor> inputs, wants;
    for (const auto& p : numbered(set, "input_")) {
      Tensor t;
      std::string name;
      std::vector<Diagnostic> errors;
      if (!read_onnx_tensor(read_all(p), &t, &name, &errors, library)) {
        r.status = "refused";
        r.code = errors.empty() ? "E2002" : errors[0].code;
        r.detail = errors.empty() ? "unreadable input" : errors[0].message;
        return r;
      }
      if (auto given = options.constants.find(name); given != options.constants.end()) {
        if (compare(t, given->second).empty()) continue;
        r.status = "refused";
        r.code = "E2007";
        r.detail =
            "input `" + name + "` differs between data sets, and forward was made for one value";
        return r;
      }
      inputs.push_back(std::move(t));
    }
    for (const auto& p : numbered(set, "output_")) {
      Tensor t;
      std::vector<Diagnostic> errors;
      if (!read_onnx_tensor(read_all(p), &t, nullptr, &errors, library)) {
        r.status = "refused";
        r.code = errors.empty() ? "E2002" : errors[0].code;
        r.detail = errors.empty() ? "unreadable output" : errors[0].message;
        return r;
      }
      wants.push_back(std::move(t));
    }
    if (inputs.size() != model.translation.inputs.size()) {
      r.status = "fail";
      r.detail = "the test gives " + std::to_string(inputs.size()) + " inputs, forward takes " +
                 std::to_string(model.translation.inputs.size());
      return r;
    }
    const CallResult result = model.module.call("forward", model.arguments(inputs));
    if (!result) {
      r.status = "fail";
      r.detail = "call failed: " + result.diagnostics.front().message;
      return r;
    }
    const std::vector<ss::Tensor> got = ss::OnnxModel::results(result);
    if (got.size() != wants.size()) {
      r.status = "fail";
      r.detail = "forward gave " + std::to_string(got.size()) + " outputs, expected " +
                 std::to_string(wants.size());
      return r;
    }
    for (std::size_t i = 0; i < wants.size(); ++i)
      if (auto why = compare(got[i], wants[i]); !why.empty()) {
        r.status = "fail";
        r.detail = set.filename().string() + " output " + std::to_string(i) + ": " + why;
        return r;
      }
  }
  r.status = "pass";
  return r;
}

}  // namespace

std::string backend_data_root() {
  const char* root = "/usr/include/onnx/backend/test/data";
  return fs::exists(fs::path(root) / "node") ? root : "";
}

std::vector<fs::path> test_folders(const std::string& suite) {
  const fs::path root = fs::path(backend_data_root()) / suite;
  std::vector<fs::path> folders;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory() && fs::exists(e.path() / "model.onnx")) folders.push_back(e.path());
  std::sort(folders.begin(), folders.end());
  return folders;
}

std::vector<BackendResult> run_backend_suite(const std::string& suite, const std::string& library) {
  std::vector<BackendResult> out;
  EngineOptions options;
  Engine engine(options);
  for (const auto& f : test_folders(suite)) out.push_back(run_one(engine, f, library));
  return out;
}

}  // namespace ss::test
