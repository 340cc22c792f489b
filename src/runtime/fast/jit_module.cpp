#include "runtime/fast/jit_module.hpp"

namespace ss::runtime {

namespace {
constexpr const char* kModuleName = "libshapescript_jit.so";
}

std::vector<std::string> jit_candidates(const std::string& requested) {
  return support::module_candidates(requested, "SHAPESCRIPT_JIT", kModuleName);
}

std::optional<JitModule> JitModule::load(const std::string& requested, std::string* why) {
  std::string reasons;
  JitModule module;
  module.library_ = support::DynamicLibrary::open_first(jit_candidates(requested), &reasons);
  if (!module.library_) {
    if (why) *why = reasons;
    return std::nullopt;
  }
  SsJitEntry entry = nullptr;
  if (!module.library_.load(entry, SS_JIT_ENTRY_SYMBOL)) {
    if (why) *why = module.path() + " has no " SS_JIT_ENTRY_SYMBOL;
    return std::nullopt;
  }
  module.api_ = entry(SS_JIT_ABI_VERSION);
  if (!module.api_) {
    if (why)
      *why = module.path() + " is from another shapescript (JIT ABI " +
             std::to_string(SS_JIT_ABI_VERSION) + " wanted)";
    return std::nullopt;
  }
  return module;
}

}  // namespace ss::runtime
