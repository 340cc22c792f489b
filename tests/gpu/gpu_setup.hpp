// What every GPU check starts with: whether a GPU is required here
// (SS_REQUIRE_GPU=1, as tests/gpu/run.sh sets it: no GPU is then a
// failure), and the driver, or nullopt after a message or a failure.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <variant>

#include "kernels/cuda_driver.hpp"

namespace ss::test {

inline bool gpu_required() {
  const char* env = std::getenv("SS_REQUIRE_GPU");
  return env && std::string(env) == "1";
}

inline std::optional<cuda::Driver> driver_or_skip() {
  auto d = cuda::Driver::open("");
  if (auto* diag = std::get_if<Diagnostic>(&d)) {
    if (gpu_required())
      FAIL_CHECK("no usable GPU: " << diag->render());
    else
      MESSAGE("no GPU here: " << diag->message);
    return std::nullopt;
  }
  return std::move(std::get<cuda::Driver>(d));
}

}  // namespace ss::test
