// A library opened at run time with dlopen. The CUDA driver, NVRTC, cuBLAS,
// NCCL and the JIT module are all reached this way, never linked, so that the
// core library loads on a machine that has none of them. A library once
// opened stays mapped until the process ends (RTLD_NODELETE): closing the
// handle only drops this reference.
#pragma once

#include <string>
#include <vector>

namespace ss::support {

class DynamicLibrary {
 public:
  DynamicLibrary() = default;
  ~DynamicLibrary();
  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  // Tries each candidate (a bare name searched as the dynamic loader does, or
  // a path) in order and keeps the first that opens. On failure the library
  // is empty and *why, when given, lists each candidate's dlerror.
  static DynamicLibrary open_first(const std::vector<std::string>& candidates,
                                   std::string* why = nullptr);
  // Like open_first, but only finds a library the process has already loaded
  // (RTLD_NOLOAD): the host's own copy of NCCL, say.
  static DynamicLibrary find_loaded(const std::vector<std::string>& candidates);

  explicit operator bool() const { return handle_ != nullptr; }

  // The file the loader actually mapped (resolved through the search path).
  const std::string& path() const { return path_; }

  // The address of a symbol, or nullptr.
  void* symbol(const char* name) const;

  // Loads a function pointer of type F; false when the symbol is missing.
  template <typename F>
  bool load(F& out, const char* name) const {
    out = reinterpret_cast<F>(symbol(name));
    return out != nullptr;
  }

 private:
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_ = nullptr;
  std::string path_;
};

// The folder of the shared object (or executable) that holds this code: where
// the core looks for the JIT module installed beside it.
std::string folder_of_this_library();

// Where to look for one of the library's own modules (the JIT's, MPI's):
// `requested` alone when given, else the path in the environment variable
// `env` when set, else `name` beside this library, in ../lib from it, and on
// the loader's search path.
std::vector<std::string> module_candidates(const std::string& requested, const char* env,
                                           const std::string& name);

}  // namespace ss::support
