// The fast CPU executor, offered each node before the reference interpreter
// (runtime/interpreter.hpp's Accelerator): contractions through the packed
// GEMM (runtime/gemm). What it doesn't take runs on the reference
// operations, so every program runs, and the tests hold it to the
// reference's results within float32 rounding.
#pragma once

#include <memory>

#include "runtime/interpreter.hpp"

namespace ss::runtime {

struct FastExecutorOptions {
  int threads = 1;  // for a GEMM large enough to split
};

std::unique_ptr<Accelerator> make_fast_executor(const FastExecutorOptions& options);

}  // namespace ss::runtime
