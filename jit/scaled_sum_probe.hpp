// The JIT's toolchain probe, without LLVM types (see scaled_sum_probe.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "jit/jit_api.h"

namespace ss::jit {

struct ProbeOutcome {
  bool ok = false;
  SsJitProbeResult result{};
  std::string error;
};

ProbeOutcome probe_scaled_sum(const float* x, std::int64_t n, float a);

}  // namespace ss::jit
