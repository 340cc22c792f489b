#include "support/portable_hashes.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "runtime/fast/fast_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "runtime/reference/ops.hpp"
#include "support/fast_executor.hpp"
#include "support/lowered_graphs.hpp"
#include "support/paths.hpp"

namespace ss::test {
namespace {

// FNV-1a over each output's shape and bytes.
std::uint64_t hash_outputs(const std::vector<runtime::Tensor>& outputs) {
  std::uint64_t h = 1469598103934665603ull;
  const auto add = [&h](const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  };
  for (const auto& t : outputs) {
    const runtime::Tensor c = t.contiguous() ? t : t.compact();
    for (const std::int64_t d : c.shape()) add(&d, sizeof d);
    add(c.raw(), static_cast<std::size_t>(c.size() * runtime::dtype_size(c.dtype())));
  }
  return h;
}

// Whether an output of floats holds a NaN.
bool has_nan(const std::vector<runtime::Tensor>& outputs) {
  for (const auto& t : outputs)
    if (t.dtype() == runtime::DType::f32)
      for (std::int64_t k = 0; k < t.size(); ++k)
        if (std::isnan(t.get(k))) return true;
  return false;
}

// The test programs and the demos, each with its gradients or not.
const std::vector<std::pair<std::string, bool>>& programs() {
  static const std::vector<std::pair<std::string, bool>> list = {
      {"tests/programs/valid/operations.ss", false},
      {"tests/programs/valid/features.ss", false},
      {"tests/programs/gradients/ops.ss", true},
      {"examples/digits/digits.ss", false},
      {"examples/digits/digits.ss", true},
      {"examples/tinylm/tinylm.ss", false},
      {"examples/tinylm/tinylm.ss", true},
      {"examples/cnn/cnn.ss", false},
      {"examples/cnn/cnn.ss", true},
      {"examples/agents/agents.ss", false},
      {"examples/agents/agents.ss", true}};
  return list;
}

// Each graph of the programs with its made-up inputs, to `visit`.
template <typename Visit>
void each_graph(Visit visit) {
  for (const auto& [file, gradients] : programs()) {
    const auto program = check_source_file(file);
    const auto& dims = program->typed.dims;
    for (const auto& lowered : lowered_graphs(*program, gradients))
      visit(file + " " + lowered.function + (gradients ? " (gradients)" : ""), lowered.graph,
            made_up_inputs(lowered.graph, dims, 37), dims);
  }
}

std::unique_ptr<runtime::GraphExecutor> portable_executor(int threads, bool jit = true) {
  return make_fast_executor(
      {.threads = threads, .portable = true, .fuse = jit, .jit_library = std::string(kJitPath)});
}

}  // namespace

std::vector<std::string> portable_hashes(int threads, std::map<std::string, std::int64_t>* nodes,
                                         bool jit) {
  const auto fast = portable_executor(threads, jit);
  std::vector<std::string> lines;
  each_graph([&](const std::string& name, const ir::Graph& g,
                 const std::map<std::string, runtime::Tensor>& inputs, const runtime::Dims& dims) {
    const auto hash_line = [&](const std::string& label,
                               const std::map<std::string, runtime::Tensor>& in) {
      std::string line = label + " ";
      bool nan = false;
      try {
        const auto outputs = runtime::run_graph(g, in, dims, nullptr, fast.get());
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx",
                      static_cast<unsigned long long>(hash_outputs(outputs)));
        line += hex;
        nan = has_nan(outputs);
      } catch (const runtime::reference::RangeError&) {
        line += "range error";
      }
      lines.push_back(line);
      return nan;
    };
    // A training step fed made-up values of both signs takes the square
    // root of a negative second moment and ends in NaN everywhere, which
    // would leave its bits untested: such a graph is hashed again with
    // every float input's magnitude.
    if (hash_line(name, inputs)) {
      std::map<std::string, runtime::Tensor> magnitudes;
      for (const auto& [input, given] : inputs) {
        runtime::Tensor t = given.clone();
        if (t.dtype() == runtime::DType::f32)
          for (std::int64_t k = 0; k < t.size(); ++k) t.set(k, std::fabs(t.get(k)));
        magnitudes.emplace(input, std::move(t));
      }
      hash_line(name + " (magnitudes)", magnitudes);
    }
  });
  if (nodes) *nodes = runtime::executor_nodes(*fast);
  return lines;
}

Agreement portable_agreement(int* graphs) {
  const auto fast = portable_executor(2);
  Agreement a;
  each_graph([&](const std::string&, const ir::Graph& g,
                 const std::map<std::string, runtime::Tensor>& inputs, const runtime::Dims& dims) {
    std::vector<runtime::Tensor> want;
    try {
      want = runtime::run_graph(g, inputs, dims);
    } catch (const runtime::reference::RangeError&) {
      return;
    }
    compare(want, runtime::run_graph(g, inputs, dims, nullptr, fast.get()), a);
    ++*graphs;
  });
  return a;
}

bool write_lines(const std::string& file, const std::vector<std::string>& lines) {
  std::ofstream out(file);
  for (const auto& line : lines) out << line << "\n";
  return static_cast<bool>(out);
}

std::vector<std::string> read_lines(const std::string& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace ss::test
