// The CUDA executor: runs a whole graph on one GPU (the executor
// interface's run_whole), each graph planned at load. The inputs are copied to the device when the
// graph starts and its outputs back when it ends; in between every value stays in device memory.
// Elementwise regions run as the fused kernels cuda_elementwise generates, contractions through
// cuBLAS (or the executor's own GEMM kernel without it), reductions, softmax, cross-entropy,
// argmax, gathers, causal masks and the moves (views, rearranges, joins, pads) as cuda_ops's
// kernels. An operation it has no kernel for (sorts, norms, random draws, bf16 values) runs on the
// host's reference operation, its operands copied over and back: every program runs, and run
// --stats names what did.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "kernels/cuda_driver.hpp"
#include "kernels/nvrtc.hpp"
#include "runtime/core/executor.hpp"
#include "shapescript/options.hpp"

namespace ss::cuda {

struct CudaExecutorOptions {
  std::shared_ptr<const Driver> driver;
  std::shared_ptr<const nvrtc::Compiler> nvrtc;
  int device = 0;
  CodeCache code_cache;  // compiled kernels between processes
  Precision precision = Precision::f32;
  // false: the executor's GEMM kernel even where cuBLAS loads (and no
  // cuBLASLt or cuDNN: a convolution is its window and that GEMM)
  bool cublas = true;
  // Replay a function's launches as a CUDA graph per input sizes
  // (kernels/cuda_graph_replay.hpp); SHAPESCRIPT_CUDA_GRAPHS=off also says no.
  bool graphs = true;
  // scatter_add's sums in index order (no atomics): runs repeat their bits.
  bool deterministic = false;
};

// Null with *why when the device can't be opened for running.
std::unique_ptr<runtime::GraphExecutor> make_cuda_executor(CudaExecutorOptions options,
                                                           std::string* why);

// What a CUDA executor did: nodes by path ("fused", "kernels", "gemm", "gemm bf16" (a
// value kept in bf16 read or written: --precision bf16),
// "gemm epilogue", "cudnn", "attention", "moves", "host OP"), graph runs, and its device's
// allocator and kernel counts. Empty for another executor.
struct CudaCounts {
  std::map<std::string, std::int64_t> nodes;
  std::int64_t graphs = 0, fused_kernels = 0;
  std::int64_t allocations = 0, reused = 0;
  std::int64_t kernels_compiled = 0, kernels_from_store = 0;
  bool cublas = false, cudnn = false;
  // CUDA graphs captured and replayed; calls run uncaptured because their
  // graph can't be (or both of its graphs' results were held); results
  // the host held moved out of a replay's way.
  std::int64_t graph_captures = 0, graph_replays = 0, graph_uncaptured = 0, graph_moved_out = 0;
};
bool is_cuda_executor(const runtime::GraphExecutor& executor);
CudaCounts cuda_counts(const runtime::GraphExecutor& executor);

}  // namespace ss::cuda
