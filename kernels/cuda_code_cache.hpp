// NVRTC output (PTX or a cubin) by content: kept in this object's memory
// and, through the host's CodeCache (the CLI's XDG cache), across
// processes, so a second load of the same program compiles nothing. An
// entry names the source, the target, NVRTC's version and the options in
// full (runtime/fast/compiled_code's entry format), so a stale or clashing one
// is compiled afresh.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kernels/nvrtc.hpp"
#include "shapescript/options.hpp"

namespace ss::cuda {

class CodeCacheNvrtc {
 public:
  enum class Origin { compiled, memory, store };

  CodeCacheNvrtc(const nvrtc::Compiler& compiler, CodeCache store)
      : compiler_(compiler), store_(std::move(store)) {}

  // The compiled code; *origin says where it came from.
  std::variant<nvrtc::Output, nvrtc::Failure> compile(std::string_view source,
                                                      std::string_view name,
                                                      const nvrtc::Target& target,
                                                      const std::vector<std::string>& options,
                                                      Origin* origin = nullptr);

 private:
  const nvrtc::Compiler& compiler_;
  CodeCache store_;
  std::mutex mutex_;
  std::map<std::string, nvrtc::Output> memory_;  // by identity
};

}  // namespace ss::cuda
