// ONNX's backend tests through the CLI (backend_suite.hpp): what a user
// running `shapescript run model.onnx --inputs in.safetensors` gets.
#include <algorithm>
#include <filesystem>
#include <map>

#include "onnx/backend_suite.hpp"
#include "shapescript/onnx.hpp"
#include "support/process.hpp"

namespace ss::test {
namespace {

namespace fs = std::filesystem;

// One data set's tensors by name (their .pb files' own names), or why not.
bool read_set(const std::vector<fs::path>& files, const std::string& library,
              std::map<std::string, Tensor>* out, std::vector<std::string>* order,
              BackendResult* r) {
  for (const auto& p : files) {
    Tensor t;
    std::string name;
    std::vector<Diagnostic> errors;
    if (!read_onnx_tensor(read_all(p), &t, &name, &errors, library)) {
      r->status = "refused";
      r->code = errors.empty() ? "E2002" : errors[0].code;
      r->detail = errors.empty() ? "unreadable tensor" : errors[0].message;
      return false;
    }
    (*out)[name] = std::move(t);
    order->push_back(name);
  }
  return true;
}

// The code of the first `error[E....]` in `text`, or "".
std::string error_code(const std::string& text) {
  const auto at = text.find("error[E");
  return at == std::string::npos ? "" : text.substr(at + 6, 5);
}

BackendResult run_one_cli(const fs::path& folder, const std::string& library,
                          const std::string& cli, const TempDir& work) {
  BackendResult r;
  r.test = folder.filename().string();
  for (const auto& set : data_sets(folder)) {
    std::map<std::string, Tensor> inputs, wants, got;
    std::vector<std::string> in_order, out_order;
    if (!read_set(numbered(set, "input_"), library, &inputs, &in_order, &r) ||
        !read_set(numbered(set, "output_"), library, &wants, &out_order, &r))
      return r;
    std::vector<Diagnostic> errors;
    const std::string in = work.file("in.safetensors"), out = work.file("out.safetensors");
    fs::remove(out);
    if (!write_tensor_file(in, inputs, &errors)) {
      r.status = "fail";
      r.detail = "can't write the inputs: " + errors.at(0).message;
      return r;
    }
    const auto run = run_process({cli, "run", (folder / "model.onnx").string(), "--inputs", in,
                                  "--outputs", out, "--code-cache", work.file("cache")},
                                 {.env = {{"SHAPESCRIPT_ONNX", library}}, .merge_stderr = true});
    const std::string code = error_code(run.out);
    if (run.exit_code == 1 && !code.empty() && code != "E0001") {
      r.status = "refused";
      r.code = code;
      r.detail = run.out.substr(0, 300);
      return r;
    }
    if (run.exit_code != 0) {
      r.status = run.exit_code >= 128 || code.empty() ? "crash" : "fail";
      r.detail = "exit " + std::to_string(run.exit_code) + ": " + run.out.substr(0, 300);
      return r;
    }
    if (!read_tensor_file(out, &got, &errors)) {
      r.status = "fail";
      r.detail = "unreadable outputs: " + errors.at(0).message;
      return r;
    }
    for (const auto& name : out_order) {
      const auto it = got.find(name);
      const std::string why = it == got.end() ? "missing" : compare(it->second, wants.at(name));
      if (!why.empty()) {
        r.status = "fail";
        r.detail = set.filename().string() + " output `" + name + "`: " + why;
        return r;
      }
    }
  }
  r.status = "pass";
  return r;
}

}  // namespace

std::vector<BackendResult> run_backend_suite_cli(const std::string& suite,
                                                 const std::string& library,
                                                 const std::string& cli) {
  std::vector<BackendResult> out;
  const TempDir work;
  for (const auto& f : test_folders(suite)) out.push_back(run_one_cli(f, library, cli, work));
  return out;
}

}  // namespace ss::test
