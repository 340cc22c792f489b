// Fused kernels by content. The JIT compiles a graph's kernels into one
// object file; that object is kept in memory for the process (a module
// loaded again, or another graph with the same kernels, reuses the code
// already linked) and in the host's CodeCache across processes (a second
// run links the stored object and compiles nothing).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jit/jit_api.h"
#include "shapescript/engine.hpp"

namespace ss::runtime {

enum class KernelOrigin { compiled, memory, store };

struct CachedKernels {
  std::vector<SsJitKernelFn> fns;  // one per kernel, in order
  KernelOrigin origin = KernelOrigin::compiled;
};

// What a set of kernels is, byte for byte: the JIT's ABI and target, then
// every kernel's steps and inputs. Two sets with the same identity are the
// same code.
std::string kernel_identity(const SsJitApi& api, const std::vector<SsJitKernelDesc>& kernels);
// The key a CodeCache stores them under: 16 hex digits of the identity's
// hash, and "k1-" before them (the entry format's version).
std::string kernel_key(const std::string& identity);

// The kernels' code: from memory, else from `store` (an entry whose
// identity matches), else compiled (and then stored). nullopt when the JIT
// fails; *error says why.
std::optional<CachedKernels> cached_kernels(const SsJitApi& api,
                                            const std::vector<SsJitKernelDesc>& kernels,
                                            const CodeCache& store, std::string* error);

}  // namespace ss::runtime
