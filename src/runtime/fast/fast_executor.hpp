// The fast CPU executor (runtime/core/executor.hpp), offered each node
// before the reference's operations: contractions through the packed
// GEMM (runtime/gemm); elementwise regions (ir/fusion.hpp) as kernels the
// LLVM JIT compiles when a load plans the graph, when the JIT module is present; other
// float32 elementwise nodes in C++ loops. What it doesn't take runs on the
// reference operations, so every program runs, and the tests hold it to
// the reference's results (elementwise ones bit for bit).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "jit/jit_api.h"
#include "runtime/core/executor.hpp"
#include "runtime/core/loop_workers.hpp"
#include "shapescript/options.hpp"

namespace ss::runtime {

struct FastExecutorOptions {
  int threads = 1;  // for a GEMM large enough to split
  // Where the split loops run (the engine's); null with threads > 1: the
  // executor's own threads (runtime/core/loop_workers.hpp).
  std::shared_ptr<LoopWorkers> workers;
  // Contractions with bfloat16 inputs, summed in float32, where the CPU has
  // AVX512-BF16 (EngineOptions::precision bf16); float32 elsewhere.
  bool bf16 = false;
  // Numerics::portable: every path's bits the same on every x86-64 CPU
  // with FMA and for any thread count (docs/numerics.md's `portable` row);
  // bf16 is then float32.
  bool portable = false;
  // Fuse elementwise regions with the JIT module found as JitModule::load
  // finds it (`jit_library`: a path, or empty for the usual search).
  bool fuse = true;
  // A loop whose body is products, fused kernels, views and joins run as
  // steps planned once (loop_steps.cpp); false: its body walked node by
  // node each step, as a test compares.
  bool plan_loops = true;
  std::string jit_library;
  CodeCache code_cache;  // where compiled kernels are kept between processes
};

// How many fused kernels the executor has compiled, how many times one ran,
// how many times one ran step by step instead (an input laid out as its
// code can't read), how many kernels it found already compiled, in the
// process or in the code cache, and how many loops ran as planned steps:
// what the tests read.
struct FusionCounts {
  std::int64_t kernels = 0, runs = 0, stepped = 0;
  std::int64_t from_memory = 0, from_store = 0;
  std::int64_t planned_loops = 0;
  // Graphs whose kernels the JIT couldn't compile or link (they ran node by
  // node), and the last failure's words.
  std::int64_t jit_failures = 0;
  std::string jit_error;
};
FusionCounts fusion_counts(const GraphExecutor& fast_executor);

// The nodes the executor ran, by path: "gemm", "fused", "loops",
// "reductions", and "reference OP" for those it left to the reference.
std::map<std::string, std::int64_t> executor_nodes(const GraphExecutor& fast_executor);
bool executor_has_jit(const GraphExecutor& fast_executor);
bool is_fast_executor(const GraphExecutor& executor);
// The JIT module's table, for the controller's code (null without it).
const SsJitApi* executor_jit(const GraphExecutor& fast_executor);

// Per graph name (a device function's, or "expression in main"): its
// runs, its fused kernels, and its nodes by path as executor_nodes counts.
struct GraphStats {
  std::int64_t calls = 0, fused_kernels = 0;
  std::map<std::string, std::int64_t> nodes;
};
std::map<std::string, GraphStats> executor_functions(const GraphExecutor& fast_executor);

std::unique_ptr<GraphExecutor> make_fast_executor(const FastExecutorOptions& options);

}  // namespace ss::runtime
