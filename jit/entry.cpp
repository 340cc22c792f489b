// The module's one export, ss_jit_api: the table of jit_api.h.
#include <llvm/Config/llvm-config.h>

#include <cstring>
#include <string>

#include "jit/elementwise_kernels.hpp"
#include "jit/jit_api.h"
#include "jit/llvm_session.hpp"
#include "jit/scaled_sum_probe.hpp"

namespace {

void copy_error(const std::string& text, char* error, size_t size) {
  if (!error || size == 0) return;
  const size_t n = text.size() < size - 1 ? text.size() : size - 1;
  std::memcpy(error, text.data(), n);
  error[n] = '\0';
}

const char* llvm_version() {
  return LLVM_VERSION_STRING;
}

const char* host_cpu() {
  static const std::string name = ss::jit::host_cpu_name();
  return name.c_str();
}

int probe_scaled_sum(const float* x, int64_t n, float a, SsJitProbeResult* result, char* error,
                     size_t error_size) {
  if (!result || (n > 0 && !x)) {
    copy_error("probe_scaled_sum: null argument", error, error_size);
    return 1;
  }
  const auto outcome = ss::jit::probe_scaled_sum(x, n, a);
  if (!outcome.ok) {
    copy_error(outcome.error, error, error_size);
    return 1;
  }
  *result = outcome.result;
  return 0;
}

int compile_elementwise(const SsJitKernelDesc* kernels, int32_t count, SsJitKernelFn* fns,
                        char* error, size_t error_size) {
  if (count < 0 || (count > 0 && (!kernels || !fns))) {
    copy_error("compile_elementwise: null argument", error, error_size);
    return 1;
  }
  const std::string why = ss::jit::compile_elementwise(kernels, count, fns);
  if (!why.empty()) {
    copy_error(why, error, error_size);
    return 1;
  }
  return 0;
}

constexpr SsJitApi kApi = {SS_JIT_ABI_VERSION, &llvm_version, &host_cpu, &probe_scaled_sum,
                           &compile_elementwise};

}  // namespace

extern "C" __attribute__((visibility("default"))) const SsJitApi* ss_jit_api(uint32_t abi_version) {
  return abi_version == SS_JIT_ABI_VERSION ? &kApi : nullptr;
}
