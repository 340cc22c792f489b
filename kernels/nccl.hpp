// NCCL, opened at run time: the host's own copy when the process has one
// loaded (RTLD_NOLOAD first, so the library and the host share one NCCL and
// the host's communicators work here), else SHAPESCRIPT_NCCL, else the
// loader's search and the CUDA toolkit's folder.
#pragma once

#include <string>
#include <variant>

#include "kernels/nccl_api.hpp"
#include "support/dynamic_library.hpp"

namespace ss::nccl {

struct Library {
  // `requested`: a path, else SHAPESCRIPT_NCCL, else the search above. On
  // failure, why it wasn't found.
  static std::variant<Library, std::string> open(const std::string& requested);

  const std::string& path() const { return library.path(); }
  std::string version_text() const;  // "2.28.9"
  // "ncclSystemError (unhandled system error)".
  std::string describe(ncclResult_t result) const;

  support::DynamicLibrary library;
  bool hosts_copy = false;  // found already loaded by the host
  int version = 0;          // major * 10000 + minor * 100 + patch
  ncclGetVersion_t ncclGetVersion = nullptr;
  ncclGetUniqueId_t ncclGetUniqueId = nullptr;
  ncclCommInitRankConfig_t ncclCommInitRankConfig = nullptr;
  ncclCommAbort_t ncclCommAbort = nullptr;
  ncclCommDestroy_t ncclCommDestroy = nullptr;
  ncclCommGetAsyncError_t ncclCommGetAsyncError = nullptr;
  ncclCommCount_t ncclCommCount = nullptr;
  ncclCommCuDevice_t ncclCommCuDevice = nullptr;
  ncclCommUserRank_t ncclCommUserRank = nullptr;
  ncclGetErrorString_t ncclGetErrorString = nullptr;
  ncclGroupStart_t ncclGroupStart = nullptr;
  ncclGroupEnd_t ncclGroupEnd = nullptr;
  ncclAllReduce_t ncclAllReduce = nullptr;
  ncclBroadcast_t ncclBroadcast = nullptr;
};

}  // namespace ss::nccl
