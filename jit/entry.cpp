// The module's one export, ss_jit_api: the table of jit_api.h.
#include <llvm/Config/llvm-config.h>

#include <cstring>
#include <string>

#include "jit/controller_code.hpp"
#include "jit/elementwise_kernels.hpp"
#include "jit/jit_api.h"
#include "jit/llvm_session.hpp"
#include "jit/object_session.hpp"
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

const char* target_id() {
  return ss::jit::target_id().c_str();
}

int compile_elementwise(const SsJitKernelDesc* kernels, int32_t count, const char* prefix,
                        void (*write)(void* context, const void* data, size_t size), void* context,
                        char* error, size_t error_size) {
  if (count < 0 || (count > 0 && !kernels) || !prefix || !write) {
    copy_error("compile_elementwise: null argument", error, error_size);
    return 1;
  }
  std::string object;
  const std::string why = ss::jit::compile_elementwise(kernels, count, prefix, &object);
  if (!why.empty()) {
    copy_error(why, error, error_size);
    return 1;
  }
  write(context, object.data(), object.size());
  return 0;
}

int compile_controller(const SsJitHostStep* steps, int32_t count, const char* prefix,
                       void (*write)(void* context, const void* data, size_t size), void* context,
                       char* error, size_t error_size) {
  if (count < 0 || (count > 0 && !steps) || !prefix || !write) {
    copy_error("compile_controller: null argument", error, error_size);
    return 1;
  }
  std::string object;
  const std::string why = ss::jit::compile_controller(steps, count, prefix, &object);
  if (!why.empty()) {
    copy_error(why, error, error_size);
    return 1;
  }
  write(context, object.data(), object.size());
  return 0;
}

int load_object(const void* object, size_t size, const char* prefix, int32_t count, void** fns,
                uint64_t* handle, char* error, size_t error_size) {
  if (!object || !prefix || !handle || count < 0 || (count > 0 && !fns)) {
    copy_error("load_object: null argument", error, error_size);
    return 1;
  }
  const std::string why = ss::jit::load_object(object, size, prefix, count, fns, handle);
  if (!why.empty()) {
    copy_error(why, error, error_size);
    return 1;
  }
  return 0;
}

int unload_object(uint64_t handle, char* error, size_t error_size) {
  const std::string why = ss::jit::unload_object(handle);
  if (!why.empty()) {
    copy_error(why, error, error_size);
    return 1;
  }
  return 0;
}

uint64_t linked_objects() {
  return ss::jit::linked_objects();
}

constexpr SsJitApi kApi = {
    SS_JIT_ABI_VERSION,   &llvm_version,       &host_cpu,    &probe_scaled_sum, &target_id,
    &compile_elementwise, &compile_controller, &load_object, &unload_object,    &linked_objects};

}  // namespace

extern "C" __attribute__((visibility("default"))) const SsJitApi* ss_jit_api(uint32_t abi_version) {
  return abi_version == SS_JIT_ABI_VERSION ? &kApi : nullptr;
}
