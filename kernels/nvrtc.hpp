// NVRTC, CUDA's run-time compiler, opened with dlopen: CUDA C in, PTX or a
// cubin out. It needs no GPU, so every generated kernel is compiled and
// inspected on a GPU-less machine too.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kernels/cuda_api.hpp"
#include "shapescript/diagnostic.hpp"
#include "support/dynamic_library.hpp"

namespace ss::nvrtc {

// Where NVRTC is looked for: the path given, else SHAPESCRIPT_NVRTC, else the
// loader's search for CUDA 13 then 12, else the toolkit under CUDA_HOME and
// /usr/local/cuda.
std::vector<std::string> library_candidates(const std::string& requested);

struct Target {
  int sm = 90;         // compute capability as one number: 90 for Hopper
  bool cubin = false;  // false: PTX for compute_<sm>; true: a cubin for sm_<sm>
};

struct Output {
  std::string code;  // PTX text, or the cubin's bytes
  std::string log;   // warnings, if any
};

// A kernel that didn't compile: NVRTC's own words and its log.
struct Failure {
  std::string message;
  std::string log;
};

class Compiler {
 public:
  // E1903 when NVRTC can't be loaded.
  static std::variant<Compiler, Diagnostic> open(const std::string& requested_path);

  const std::string& path() const { return library_.path(); }
  std::string version() const;  // "13.0"

  std::variant<Output, Failure> compile(std::string_view source, std::string_view name,
                                        const Target& target,
                                        const std::vector<std::string>& extra_options = {}) const;

 private:
  support::DynamicLibrary library_;
  nvrtcVersion_t nvrtcVersion = nullptr;
  nvrtcGetErrorString_t nvrtcGetErrorString = nullptr;
  nvrtcCreateProgram_t nvrtcCreateProgram = nullptr;
  nvrtcDestroyProgram_t nvrtcDestroyProgram = nullptr;
  nvrtcCompileProgram_t nvrtcCompileProgram = nullptr;
  nvrtcGetProgramLogSize_t nvrtcGetProgramLogSize = nullptr;
  nvrtcGetProgramLog_t nvrtcGetProgramLog = nullptr;
  nvrtcGetPTXSize_t nvrtcGetPTXSize = nullptr;
  nvrtcGetPTX_t nvrtcGetPTX = nullptr;
  nvrtcGetCUBINSize_t nvrtcGetCUBINSize = nullptr;
  nvrtcGetCUBIN_t nvrtcGetCUBIN = nullptr;
};

}  // namespace ss::nvrtc
