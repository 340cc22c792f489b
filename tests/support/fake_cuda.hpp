// The stand-in CUDA driver (tests/fakes/fake_cuda.cpp) for tests that run the
// CUDA executor on it: a device of compute capability 9.0 whose launches do
// nothing, for a scope's length, and its ss_fake_* controls by name.
#pragma once

#include <dlfcn.h>
#include <doctest/doctest.h>

#include <cstdlib>

#include "support/build_paths.hpp"

namespace ss::test {

struct NoopDevice {
  NoopDevice() {
    setenv("SS_FAKE_CUDA_LAUNCHES", "noop", 1);
    setenv("SS_FAKE_CUDA_SM", "90", 1);
  }
  ~NoopDevice() {
    unsetenv("SS_FAKE_CUDA_LAUNCHES");
    unsetenv("SS_FAKE_CUDA_SM");
  }
  NoopDevice(const NoopDevice&) = delete;
  NoopDevice& operator=(const NoopDevice&) = delete;
};

// One of the stand-in's exported functions, as type F.
template <typename F>
F fake_cuda(const char* name) {
  static void* library = dlopen(ss::test::built::fake_cuda, RTLD_NOW);
  REQUIRE_MESSAGE(library, dlerror());
  auto f = reinterpret_cast<F>(dlsym(library, name));
  const bool found = f != nullptr;
  REQUIRE(found);
  return f;
}

}  // namespace ss::test
