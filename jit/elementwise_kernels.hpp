// Fused elementwise kernels (jit_api.h's compile_elementwise): LLVM IR for
// each kernel's two loops, the O3 pipeline for the host, and one LLJIT kept
// for the module's life. No LLVM type or exception leaves.
#pragma once

#include <string>

#include "jit/jit_api.h"

namespace ss::jit {

// Fills fns[0..count); on failure, the error.
std::string compile_elementwise(const SsJitKernelDesc* kernels, int count, SsJitKernelFn* fns);

}  // namespace ss::jit
