#include "kernels/cuda_libraries.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "support/dynamic_library.hpp"

namespace ss::cuda {
namespace {

std::vector<std::string> toolkit_candidates(const std::string& stem,
                                            const std::vector<int>& majors) {
  std::vector<std::string> out;
  for (int major : majors) out.push_back(stem + ".so." + std::to_string(major));
  out.push_back(stem + ".so");
  if (const char* home = std::getenv("CUDA_HOME"); home && *home)
    out.push_back(std::string(home) + "/lib64/" + stem + ".so");
  out.push_back("/usr/local/cuda/lib64/" + stem + ".so");
  return out;
}

}  // namespace

LibraryStatus probe_cublas() {
  LibraryStatus status;
  std::string why;
  auto lib = support::DynamicLibrary::open_first(toolkit_candidates("libcublas", {13, 12}), &why);
  using GetProperty =
      int (*)(int type, int* value);  // cublasGetProperty(libraryPropertyType, int*)
  GetProperty get_property = nullptr;
  if (!lib || !lib.load(get_property, "cublasGetProperty")) {
    status.detail = lib ? lib.path() + " lacks cublasGetProperty" : why;
    return status;
  }
  int major = 0, minor = 0, patch = 0;  // MAJOR_VERSION = 0, MINOR_VERSION = 1, PATCH_LEVEL = 2
  get_property(0, &major);
  get_property(1, &minor);
  get_property(2, &patch);
  status.found = true;
  status.path = lib.path();
  status.version =
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  return status;
}

LibraryStatus probe_nccl() {
  LibraryStatus status;
  const std::vector<std::string> names = {"libnccl.so.2", "libnccl.so"};
  auto lib = support::DynamicLibrary::find_loaded(names);
  const bool hosts_copy = static_cast<bool>(lib);
  std::string why;
  if (!lib) {
    auto candidates = names;
    if (const char* home = std::getenv("CUDA_HOME"); home && *home)
      candidates.push_back(std::string(home) + "/lib64/libnccl.so.2");
    candidates.push_back("/usr/local/cuda/lib64/libnccl.so.2");
    lib = support::DynamicLibrary::open_first(candidates, &why);
  }
  using GetVersion = int (*)(int* version);  // ncclGetVersion
  GetVersion get_version = nullptr;
  if (!lib || !lib.load(get_version, "ncclGetVersion")) {
    status.detail = lib ? lib.path() + " lacks ncclGetVersion" : why;
    return status;
  }
  int code = 0;
  get_version(&code);
  // NCCL 2.9 and later: major * 10000 + minor * 100 + patch.
  status.found = true;
  status.path = lib.path();
  status.version = std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
                   std::to_string(code % 100);
  status.detail = hosts_copy ? "the host's copy" : "loaded by shapescript";
  return status;
}

}  // namespace ss::cuda
