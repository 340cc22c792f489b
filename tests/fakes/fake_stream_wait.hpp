// For the stand-in libraries (cuBLASLt, cuDNN): a call on a stream first
// waits for the work queued there (its copies) through the stand-in driver
// that SS_FAKE_CUDA_PATH names; the driver's stream runs its work in
// order, the stand-ins compute at once. False where it can't wait.
#pragma once

#include <dlfcn.h>

#include <cstdlib>

namespace ss_fake {

inline bool wait_for_stream(void* stream) {
  if (!stream) return true;
  using Sync = int (*)(void*);
  const char* path = std::getenv("SS_FAKE_CUDA_PATH");
  void* driver = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  const auto sync = driver ? reinterpret_cast<Sync>(dlsym(driver, "cuStreamSynchronize")) : nullptr;
  return sync && sync(stream) == 0;
}

}  // namespace ss_fake
