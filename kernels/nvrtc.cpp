#include "kernels/nvrtc.hpp"

#include <cstdlib>

#include "diag/codes.hpp"

namespace ss::nvrtc {

std::vector<std::string> library_candidates(const std::string& requested) {
  if (!requested.empty()) return {requested};
  if (const char* env = std::getenv("SHAPESCRIPT_NVRTC"); env && *env) return {env};
  std::vector<std::string> out = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  if (const char* home = std::getenv("CUDA_HOME"); home && *home)
    out.push_back(std::string(home) + "/lib64/libnvrtc.so");
  out.push_back("/usr/local/cuda/lib64/libnvrtc.so");
  return out;
}

std::variant<Compiler, Diagnostic> Compiler::open(const std::string& requested_path) {
  const auto candidates = library_candidates(requested_path);
  std::string why;
  Compiler c;
  c.library_ = support::DynamicLibrary::open_first(candidates, &why);
  const auto& lib = c.library_;
  const bool complete = lib && lib.load(c.nvrtcVersion, "nvrtcVersion") &&
                        lib.load(c.nvrtcGetErrorString, "nvrtcGetErrorString") &&
                        lib.load(c.nvrtcCreateProgram, "nvrtcCreateProgram") &&
                        lib.load(c.nvrtcDestroyProgram, "nvrtcDestroyProgram") &&
                        lib.load(c.nvrtcCompileProgram, "nvrtcCompileProgram") &&
                        lib.load(c.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize") &&
                        lib.load(c.nvrtcGetProgramLog, "nvrtcGetProgramLog") &&
                        lib.load(c.nvrtcGetPTXSize, "nvrtcGetPTXSize") &&
                        lib.load(c.nvrtcGetPTX, "nvrtcGetPTX") &&
                        lib.load(c.nvrtcGetCUBINSize, "nvrtcGetCUBINSize") &&
                        lib.load(c.nvrtcGetCUBIN, "nvrtcGetCUBIN");
  if (complete) return c;

  Diagnostic d = diag::error(
      diag::Code::E1903,
      lib ? "`" + lib.path() + "` isn't NVRTC: it lacks NVRTC's functions"
          : "can't load NVRTC (`" + candidates.front() + "`), which compiles the CUDA kernels",
      "install the CUDA toolkit's NVRTC (12 or 13), or name it with SHAPESCRIPT_NVRTC");
  if (!lib) d.notes.push_back(why);
  return d;
}

std::string Compiler::version() const {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::variant<Output, Failure> Compiler::compile(
    std::string_view source, std::string_view name, const Target& target,
    const std::vector<std::string>& extra_options) const {
  const std::string source_text(source);
  const std::string name_text(name);
  nvrtcProgram program = nullptr;
  if (const nvrtcResult r =
          nvrtcCreateProgram(&program, source_text.c_str(), name_text.c_str(), 0, nullptr, nullptr);
      r != NVRTC_SUCCESS)
    return Failure{nvrtcGetErrorString(r), {}};

  // The program is destroyed on every path out.
  struct Guard {
    nvrtcProgram* program;
    nvrtcDestroyProgram_t destroy;
    ~Guard() { destroy(program); }
  } guard{&program, nvrtcDestroyProgram};

  std::vector<std::string> options = {std::string("--gpu-architecture=") +
                                          (target.cubin ? "sm_" : "compute_") +
                                          std::to_string(target.sm),
                                      "--std=c++17"};
  options.insert(options.end(), extra_options.begin(), extra_options.end());
  std::vector<const char*> option_ptrs;
  for (const auto& o : options) option_ptrs.push_back(o.c_str());

  const nvrtcResult compiled =
      nvrtcCompileProgram(program, static_cast<int>(option_ptrs.size()), option_ptrs.data());

  std::string log;
  std::size_t log_size = 0;
  if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    nvrtcGetProgramLog(program, log.data());
    log.resize(log_size - 1);  // drop the terminating NUL
  }
  if (compiled != NVRTC_SUCCESS) return Failure{nvrtcGetErrorString(compiled), log};

  Output out;
  out.log = std::move(log);
  std::size_t size = 0;
  if (target.cubin) {
    if (const nvrtcResult r = nvrtcGetCUBINSize(program, &size); r != NVRTC_SUCCESS)
      return Failure{nvrtcGetErrorString(r), out.log};
    out.code.resize(size);
    nvrtcGetCUBIN(program, out.code.data());
  } else {
    if (const nvrtcResult r = nvrtcGetPTXSize(program, &size); r != NVRTC_SUCCESS)
      return Failure{nvrtcGetErrorString(r), out.log};
    out.code.resize(size);
    nvrtcGetPTX(program, out.code.data());
    if (!out.code.empty() && out.code.back() == '\0') out.code.pop_back();
  }
  return out;
}

}  // namespace ss::nvrtc
