// The C ABI's batcher (ss::Batcher): every pointer a function needs is
// checked first (E1612); see c_api.cpp.
#include <memory>
#include <vector>

#include "api/c_api_handles.hpp"

using namespace ss::c_api;

struct ss_batcher {
  ss::Batcher batcher;
};

namespace {

// The request's rows as the C++ API takes them, or E1612 for a null one.
ss_status* rows(const char* function, const ss_tensor* const* inputs, size_t input_count,
                const ss_tensor* const* outputs, size_t output_count, std::vector<ss::Tensor>* in,
                std::vector<ss::Tensor>* out) {
  if (auto* bad = null_in(function, "inputs", inputs, input_count)) return bad;
  if (auto* bad = null_in(function, "outputs", outputs, output_count)) return bad;
  for (size_t k = 0; k < input_count; ++k) in->push_back(inputs[k]->t);
  for (size_t k = 0; k < output_count; ++k) out->push_back(outputs[k]->t);
  return nullptr;
}

}  // namespace

ss_batcher* ss_batcher_new(const ss_module* module, const char* function, const ss_arg* resident,
                           size_t count, int max_batch, int64_t max_wait_us, ss_status** status) {
  if (status) *status = nullptr;
  if (!module) return set(status, null_argument(__func__, "module")), nullptr;
  if (!function) return set(status, null_argument(__func__, "function")), nullptr;
  const char* self = __func__;
  return guarded(status, [&]() -> ss_batcher* {
    std::vector<ss::Arg> given;
    if (auto* bad = arguments(self, resident, count, &given)) return set(status, bad), nullptr;
    ss::BatcherOptions options;
    options.max_batch = max_batch;
    options.max_wait = std::chrono::microseconds(max_wait_us < 0 ? 0 : max_wait_us);
    return new ss_batcher{ss::Batcher(module->module, function, std::move(given), options)};
  });
}

ss_status* ss_batcher_run(ss_batcher* batcher, const ss_tensor* const* inputs, size_t input_count,
                          const ss_tensor* const* outputs, size_t output_count) {
  if (!batcher) return null_argument(__func__, "batcher");
  const char* self = __func__;
  return run([&]() -> ss_status* {
    std::vector<ss::Tensor> in, out;
    if (auto* bad = rows(self, inputs, input_count, outputs, output_count, &in, &out)) return bad;
    return status_of(batcher->batcher.run(in, out));
  });
}

ss_status* ss_batcher_submit(ss_batcher* batcher, const ss_tensor* const* inputs,
                             size_t input_count, const ss_tensor* const* outputs,
                             size_t output_count, void (*done)(void* user, ss_status* status),
                             void* user) {
  if (!batcher) return null_argument(__func__, "batcher");
  if (!done) return null_argument(__func__, "done");
  const char* self = __func__;
  return run([&]() -> ss_status* {
    std::vector<ss::Tensor> in, out;
    if (auto* bad = rows(self, inputs, input_count, outputs, output_count, &in, &out)) return bad;
    batcher->batcher.submit(std::move(in), std::move(out),
                            [done, user](std::vector<ss::Diagnostic> diagnostics) {
                              ss_status* status = nullptr;
                              try {
                                status = status_of(diagnostics);
                              } catch (const std::exception& e) {
                                status = from_exception(e);
                              }
                              done(user, status);
                            });
    return nullptr;
  });
}

ss_status* ss_batcher_flush(ss_batcher* batcher) {
  if (!batcher) return null_argument(__func__, "batcher");
  return run([&]() -> ss_status* {
    batcher->batcher.flush();
    return nullptr;
  });
}

void ss_batcher_free(ss_batcher* batcher) {
  guarded(nullptr, [&] {
    delete batcher;
    return 0;
  });
}
