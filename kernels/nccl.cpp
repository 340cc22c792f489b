#include "kernels/nccl.hpp"

#include <cstdlib>
#include <vector>

namespace ss::nccl {
namespace {

bool load_calls(Library& n) {
  const auto& lib = n.library;
  return lib.load(n.ncclGetVersion, "ncclGetVersion") &&
         lib.load(n.ncclGetUniqueId, "ncclGetUniqueId") &&
         lib.load(n.ncclCommInitRankConfig, "ncclCommInitRankConfig") &&
         lib.load(n.ncclCommAbort, "ncclCommAbort") &&
         lib.load(n.ncclCommDestroy, "ncclCommDestroy") &&
         lib.load(n.ncclCommGetAsyncError, "ncclCommGetAsyncError") &&
         lib.load(n.ncclCommCount, "ncclCommCount") &&
         lib.load(n.ncclCommCuDevice, "ncclCommCuDevice") &&
         lib.load(n.ncclCommUserRank, "ncclCommUserRank") &&
         lib.load(n.ncclGetErrorString, "ncclGetErrorString") &&
         lib.load(n.ncclGroupStart, "ncclGroupStart") && lib.load(n.ncclGroupEnd, "ncclGroupEnd") &&
         lib.load(n.ncclAllReduce, "ncclAllReduce") && lib.load(n.ncclBroadcast, "ncclBroadcast");
}

}  // namespace

std::variant<Library, std::string> Library::open(const std::string& requested) {
  const std::vector<std::string> names = {"libnccl.so.2", "libnccl.so"};
  Library n;
  std::string why;
  if (!requested.empty()) {
    n.library = support::DynamicLibrary::open_first({requested}, &why);
  } else if (const char* env = std::getenv("SHAPESCRIPT_NCCL"); env && *env) {
    n.library = support::DynamicLibrary::open_first({env}, &why);
  } else {
    n.library = support::DynamicLibrary::find_loaded(names);
    n.hosts_copy = static_cast<bool>(n.library);
    if (!n.library) {
      auto candidates = names;
      if (const char* home = std::getenv("CUDA_HOME"); home && *home)
        candidates.push_back(std::string(home) + "/lib64/libnccl.so.2");
      candidates.push_back("/usr/local/cuda/lib64/libnccl.so.2");
      n.library = support::DynamicLibrary::open_first(candidates, &why);
    }
  }
  if (!n.library) return why;
  if (!load_calls(n)) return "`" + n.path() + "` lacks NCCL's functions (2.14 or later)";
  n.ncclGetVersion(&n.version);
  if (n.version < 21400)
    return "`" + n.path() + "` is NCCL " + n.version_text() + "; 2.14 or later is needed";
  return n;
}

std::string Library::version_text() const {
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

std::string Library::describe(ncclResult_t result) const {
  static const char* const names[] = {
      "ncclSuccess",         "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
      "ncclInvalidArgument", "ncclInvalidUsage",       "ncclRemoteError", "ncclInProgress"};
  std::string out =
      result >= 0 && result < 8 ? names[result] : "NCCL error " + std::to_string(result);
  if (ncclGetErrorString)
    if (const char* text = ncclGetErrorString(result)) out += std::string(" (") + text + ")";
  return out;
}

}  // namespace ss::nccl
