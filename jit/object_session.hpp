// The process's one ORC LLJIT, shared by everything the module compiles,
// and the object files it runs: a module optimised and emitted as an object
// file (the bytes the code cache keeps) and objects linked into the JIT.
// No LLVM type or exception leaves through the functions here.
#pragma once

#include <llvm/IR/Module.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ss::jit {

// "x86_64-pc-linux-gnu znver5 +avx2,+fma,... LLVM 19.1.7": what compiled
// code depends on besides its source. Empty when the host target fails.
const std::string& target_id();

// Runs the O3 pipeline for the host on `module` (unless `optimise` is
// false: code with nothing to optimise, such as calls and branches) and
// emits it as an object file into *object. Returns an error, or empty.
std::string emit_object(llvm::Module& module, std::string* object, bool optimise = true);

// Links an object file into the JIT and finds `count` functions named
// prefix + "0", prefix + "1", ...; *handle names the link. Addresses stay
// valid until unload_object(handle). Returns an error, or empty (and on an
// error nothing stays linked).
std::string load_object(const void* data, std::size_t size, const std::string& prefix,
                        std::int32_t count, void** fns, std::uint64_t* handle);

// Removes a linked object: its code, memory and mappings go back.
std::string unload_object(std::uint64_t handle);

// How many objects are linked now.
std::size_t linked_objects();

}  // namespace ss::jit
