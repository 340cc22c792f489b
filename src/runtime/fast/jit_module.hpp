// The LLVM JIT module (libshapescript_jit.so), opened with dlopen when it is
// present. The core never links LLVM: `check` never loads it, and a machine
// without LLVM runs everything on the reference runtime.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "jit/jit_api.h"
#include "support/dynamic_library.hpp"

namespace ss::runtime {

// Where the module is looked for: the path given, else SHAPESCRIPT_JIT, else
// beside the library holding the core (and ../lib from there), else the
// loader's search.
std::vector<std::string> jit_candidates(const std::string& requested);

class JitModule {
 public:
  // nullopt when there is no module, or one of another ABI version; *why says
  // which.
  static std::optional<JitModule> load(const std::string& requested, std::string* why = nullptr);

  const SsJitApi& api() const { return *api_; }
  const std::string& path() const { return library_.path(); }

 private:
  support::DynamicLibrary library_;
  const SsJitApi* api_ = nullptr;
};

}  // namespace ss::runtime
