#include "support/dynamic_library.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

namespace ss::support {
namespace {

std::string mapped_path(void* handle, const std::string& fallback) {
  link_map* map = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0])
    return map->l_name;
  return fallback;
}

DynamicLibrary open_with(const std::vector<std::string>& candidates, int flags, std::string* why,
                         DynamicLibrary (*make)(void*, std::string)) {
  std::string reasons;
  for (const auto& name : candidates) {
    if (name.empty()) continue;
    if (void* handle = ::dlopen(name.c_str(), flags))
      return make(handle, mapped_path(handle, name));
    const char* err = ::dlerror();
    if (!reasons.empty()) reasons += "; ";
    reasons += err ? err : name + ": not found";
  }
  if (why) *why = reasons.empty() ? "no candidate named" : reasons;
  return {};
}

}  // namespace

DynamicLibrary::~DynamicLibrary() {
  if (handle_) ::dlclose(handle_);
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_) ::dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

DynamicLibrary DynamicLibrary::open_first(const std::vector<std::string>& candidates,
                                          std::string* why) {
  // RTLD_LOCAL keeps e.g. two CUDA toolkits' symbols apart; RTLD_NOW finds a
  // broken library here rather than at its first call; RTLD_NODELETE keeps it
  // mapped for the process's life, since neither CUDA's libraries nor LLVM
  // survive being unloaded and loaded again.
  return open_with(candidates, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE, why,
                   [](void* h, std::string p) { return DynamicLibrary(h, std::move(p)); });
}

DynamicLibrary DynamicLibrary::find_loaded(const std::vector<std::string>& candidates) {
  return open_with(candidates, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE, nullptr,
                   [](void* h, std::string p) { return DynamicLibrary(h, std::move(p)); });
}

void* DynamicLibrary::symbol(const char* name) const {
  return handle_ ? ::dlsym(handle_, name) : nullptr;
}

std::string folder_of_this_library() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&folder_of_this_library), &info) == 0 || !info.dli_fname)
    return {};
  // Only an absolute folder: a relative one (the library found through a
  // relative LD_LIBRARY_PATH entry) would be read against the working
  // directory, where anyone may have put a library of that name.
  std::string path = info.dli_fname;
  if (!path.empty() && path[0] != '/' && path == program_invocation_name) {
    // Linked into the program, which was started by a relative path: the
    // kernel's absolute one.
    char exe[4096];
    const auto n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    path = n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : std::string();
  }
  if (path.empty() || path[0] != '/') return {};
  const auto slash = path.rfind('/');
  return slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
}

std::vector<std::string> module_candidates(const std::string& requested, const char* env,
                                           const std::string& name) {
  if (!requested.empty()) return {requested};
  if (const char* path = std::getenv(env); path && *path) return {path};
  std::vector<std::string> out;
  if (const std::string here = folder_of_this_library(); !here.empty()) {
    out.push_back(here + "/" + name);
    out.push_back(here + "/../lib/" + name);
  }
  out.push_back(name);
  return out;
}

}  // namespace ss::support
