// A CUDA executor for the tests: on the driver at `driver_path` (the
// stand-in's, or "" for the machine's), with NVRTC from the usual search.
// Null with *why when the driver, NVRTC or the device can't be had.
// `graphs` false: every call runs uncaptured (kernels/cuda_graph_replay.hpp).
#pragma once

#include <memory>
#include <string>
#include <variant>

#include "kernels/cuda_driver.hpp"
#include "kernels/cuda_executor.hpp"
#include "kernels/nvrtc.hpp"

namespace ss::test {

inline std::unique_ptr<runtime::GraphExecutor> cuda_executor_on(
    const std::string& driver_path, const CodeCache& cache, Precision precision, bool cublas,
    std::string* why, bool graphs = true, bool deterministic = false) {
  auto driver = cuda::Driver::open(driver_path);
  if (auto* d = std::get_if<Diagnostic>(&driver)) {
    *why = d->message;
    return nullptr;
  }
  auto compiler = nvrtc::Compiler::open("");
  if (auto* d = std::get_if<Diagnostic>(&compiler)) {
    *why = d->message;
    return nullptr;
  }
  cuda::CudaExecutorOptions options;
  options.driver = std::make_shared<const cuda::Driver>(std::get<cuda::Driver>(std::move(driver)));
  options.nvrtc =
      std::make_shared<const nvrtc::Compiler>(std::get<nvrtc::Compiler>(std::move(compiler)));
  options.code_cache = cache;
  options.precision = precision;
  options.cublas = cublas;
  options.graphs = graphs;
  options.deterministic = deterministic;
  return cuda::make_cuda_executor(std::move(options), why);
}

// How many nodes a CUDA executor has run by `path` (CudaCounts::nodes).
inline std::int64_t path_count(const runtime::GraphExecutor& executor, const std::string& path) {
  const auto nodes = cuda::cuda_counts(executor).nodes;
  const auto it = nodes.find(path);
  return it == nodes.end() ? 0 : it->second;
}

}  // namespace ss::test
