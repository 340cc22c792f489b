// Code the JIT compiled, by content: fused kernels (a graph's, in one
// object) and controller functions. An object is linked once while anything
// holds its code (a module loaded again, or another graph with the same
// kernels, reuses the code already linked), unloaded when the last holder
// goes (a process that loads program after program keeps only the code of
// the ones it holds), and kept in the host's CodeCache across processes (a
// second run links the stored object and compiles nothing).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jit/jit_api.h"
#include "shapescript/options.hpp"

namespace ss::runtime {

enum class CodeOrigin { compiled, memory, store };

struct CachedCode {
  std::vector<void*> fns;  // the object's functions, in order
  CodeOrigin origin = CodeOrigin::compiled;
  // The link: the functions run while a copy of it is held, and the code is
  // unloaded when the last copy goes.
  std::shared_ptr<const void> link;
};

// How many objects this process has linked into the JIT and holds now.
std::size_t linked_code_count();

// What a set of kernels is, byte for byte: the JIT's ABI and target, then
// every kernel's steps and inputs. Two sets with the same identity are the
// same code.
std::string kernel_identity(const SsJitApi& api, const std::vector<SsJitKernelDesc>& kernels);
// The same for a controller function's steps.
std::string controller_identity(const SsJitApi& api, const std::vector<SsJitHostStep>& steps);
// The key a CodeCache stores an identity's object under: "k1-" (the entry
// format's version) and 16 hex digits of its hash.
std::string code_key(const std::string& identity);

// A CodeCache entry: a magic line, the identity in full, the object's hash,
// then the object; and the object in an entry when the entry is for
// `identity` and the object is whole (else nullopt: another version's, a
// hash clash, or damaged).
std::string cache_entry(const std::string& identity, const std::string& object);
std::optional<std::string> cached_object(const std::string& bytes, const std::string& identity);

// Compiles the code an identity names into an object whose functions are
// named `prefix` followed by 0, 1, ...: false with *error on failure.
using CompileObject =
    std::function<bool(const std::string& prefix, std::string* object, std::string* error)>;

// A JIT entry (compile_elementwise, compile_controller) called with a
// writer and an error buffer: its object in *object, or false and *error.
using JitEntryCall = std::function<int(void (*write)(void*, const void*, std::size_t),
                                       void* context, char* error, std::size_t error_size)>;
bool compile_with(const JitEntryCall& call, std::string* object, std::string* error);

// The `count` functions of an identity's code: linked already in this
// process (and held), else from `store` (an entry whose identity matches and whose
// object links), else compiled (and then stored). nullopt when the JIT
// fails; *error says why.
std::optional<CachedCode> cached_code(const SsJitApi& api, const std::string& identity, int count,
                                      const CompileObject& compile, const CodeCache& store,
                                      std::string* error);

}  // namespace ss::runtime
