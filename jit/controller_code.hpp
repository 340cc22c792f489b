// Controller functions (jit_api.h's compile_controller): one basic block
// per instruction, a call into the runtime for each instruction's work and
// a branch on its answer, optimised and emitted as an object file
// (jit/object_session). No LLVM type or exception leaves.
#pragma once

#include <string>

#include "jit/jit_api.h"

namespace ss::jit {

// An object file defining the function as prefix + "0", in *object; on
// failure, the error.
std::string compile_controller(const SsJitHostStep* steps, int count, const std::string& prefix,
                               std::string* object);

}  // namespace ss::jit
