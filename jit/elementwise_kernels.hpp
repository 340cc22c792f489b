// Fused elementwise kernels (jit_api.h's compile_elementwise): LLVM IR for
// each kernel's two loops, optimised at O3 for the host and emitted as an
// object file (jit/object_session). No LLVM type or exception leaves.
#pragma once

#include <string>

#include "jit/jit_api.h"

namespace ss::jit {

// An object file defining kernel k as prefix + k, in *object; on failure,
// the error.
std::string compile_elementwise(const SsJitKernelDesc* kernels, int count,
                                const std::string& prefix, std::string* object);

}  // namespace ss::jit
