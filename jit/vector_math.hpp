// Float32 vector math for compiled kernels: SLEEF (Debian's libsleef3),
// opened at run time like CUDA, so a machine without it still runs. When it
// is present the loop vectoriser maps expf, logf, tanhf and erff in a loop
// to SLEEF's 1.0-ulp functions for the widest vector the host has; the
// scalar iterations left over (and every call when SLEEF is absent) call
// libm's float functions (at most 2 ulp on x86-64, glibc's manual). Either
// way a kernel's result is within docs/numerics.md's `fast-elementwise` row.
#pragma once

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Target/TargetMachine.h>

#include <map>
#include <string>
#include <vector>

namespace ss::jit {

struct VectorMath {
  bool present = false;  // SLEEF opened
  std::string library;   // the file opened, or why none was
  // "sleef 3 avx2 tanh u35" or "libm": part of the code cache key (object_session's target_id).
  std::string id;
  // Scalar name to vector name, per width: SLEEF's where it is present,
  // and always the portable functions' (jit/portable_functions.hpp).
  std::vector<llvm::VecDesc> functions;
  std::map<std::string, void*>
      addresses;  // each function named in `functions`, and the portable scalar ones
};

// What the machine's features allow, opened once per process.
const VectorMath& vector_math(const llvm::TargetMachine& machine);

// Defines SLEEF's vector functions in the JIT's main library, by address:
// the library is opened RTLD_LOCAL, so the process's global scope doesn't
// change; and the portable functions. False if the definitions fail.
bool add_vector_math_symbols(llvm::orc::LLJIT& jit, const VectorMath& math);

}  // namespace ss::jit
