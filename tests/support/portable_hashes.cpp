#include "support/portable_hashes.hpp"

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

}  // namespace

std::vector<std::string> portable_hashes(int threads) {
  const auto fast = make_fast_executor(
      {.threads = threads, .portable = true, .jit_library = std::string(kJitPath)});
  std::vector<std::string> lines;
  for (const auto& [file, gradients] :
       std::vector<std::pair<std::string, bool>>{{"tests/programs/valid/operations.ss", false},
                                                 {"tests/programs/valid/features.ss", false},
                                                 {"tests/programs/gradients/ops.ss", true},
                                                 {"examples/digits/digits.ss", false},
                                                 {"examples/digits/digits.ss", true},
                                                 {"examples/tinylm/tinylm.ss", false},
                                                 {"examples/tinylm/tinylm.ss", true},
                                                 {"examples/cnn/cnn.ss", false},
                                                 {"examples/cnn/cnn.ss", true},
                                                 {"examples/agents/agents.ss", false},
                                                 {"examples/agents/agents.ss", true}}) {
    const auto program = check_source_file(file);
    const auto& dims = program->typed.dims;
    for (const auto& lowered : lowered_graphs(*program, gradients)) {
      std::ostringstream line;
      line << file << " " << lowered.function << (gradients ? " (gradients)" : "") << " ";
      const auto inputs = made_up_inputs(lowered.graph, dims, 37);
      try {
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx",
                      static_cast<unsigned long long>(hash_outputs(
                          runtime::run_graph(lowered.graph, inputs, dims, nullptr, fast.get()))));
        line << hex;
      } catch (const runtime::reference::RangeError&) {
        line << "range error";
      }
      lines.push_back(line.str());
    }
  }
  return lines;
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
