#include "kernels/cuda_libraries.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/nccl.hpp"
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

std::vector<std::string> cublas_candidates() {
  return toolkit_candidates("libcublas", {13, 12});
}

std::vector<std::string> cublas_lt_candidates() {
  return toolkit_candidates("libcublasLt", {13, 12});
}

std::vector<std::string> cudnn_candidates() {
  return toolkit_candidates("libcudnn", {9, 8});
}

LibraryStatus probe_cublas() {
  LibraryStatus status;
  std::string why;
  const auto lt = support::DynamicLibrary::open_first(cublas_lt_candidates());
  auto lib = support::DynamicLibrary::open_first(cublas_candidates(), &why);
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

LibraryStatus probe_cudnn() {
  LibraryStatus status;
  const char* v = std::getenv("SHAPESCRIPT_CUDNN");
  const std::string requested = v ? v : "";
  if (requested == "0") {
    status.detail = "turned off (SHAPESCRIPT_CUDNN=0)";
    return status;
  }
  std::string why;
  auto lib = support::DynamicLibrary::open_first(
      requested.empty() ? cudnn_candidates() : std::vector<std::string>{requested}, &why);
  using GetVersion = std::size_t (*)();
  GetVersion get_version = nullptr;
  if (!lib || !lib.load(get_version, "cudnnGetVersion")) {
    status.detail = lib ? lib.path() + " lacks cudnnGetVersion" : why;
    return status;
  }
  // 8: major * 1000 + minor * 100 + patch; 9 and later: major * 10000 + minor * 100 + patch.
  const std::size_t n = get_version();
  const std::size_t major = n >= 90000 ? n / 10000 : n / 1000;
  const std::size_t minor = n >= 90000 ? n / 100 % 100 : n / 100 % 10;
  status.found = true;
  status.path = lib.path();
  status.version =
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(n % 100);
  return status;
}

LibraryStatus probe_nccl(const std::string& requested) {
  LibraryStatus status;
  auto found = nccl::Library::open(requested);
  if (auto* why = std::get_if<std::string>(&found)) {
    status.detail = *why;
    return status;
  }
  const auto& lib = std::get<nccl::Library>(found);
  status.found = true;
  status.path = lib.path();
  status.version = lib.version_text();
  status.detail = lib.hosts_copy ? "the host's copy" : "loaded by shapescript";
  return status;
}

}  // namespace ss::cuda
