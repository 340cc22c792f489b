// What an Engine holds: its options, its logger, the diagnostics of opening
// its device, and the CUDA driver and NVRTC when it runs on a GPU.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "api/call_trace.hpp"
#include "diag/codes.hpp"
#include "kernels/cuda_driver.hpp"
#include "kernels/nvrtc.hpp"
#include "runtime/core/loop_workers.hpp"
#include "shapescript/engine.hpp"
#include "support/log.hpp"

namespace ss {

struct Engine::Impl {
  EngineOptions options;
  support::LoggerPtr log;
  std::vector<Diagnostic> diagnostics;
  std::optional<cuda::Driver> driver;
  std::optional<nvrtc::Compiler> nvrtc;
  // The parallel loops' threads (or the host's runner), shared with every
  // module loaded: the last of them to go joins the threads.
  std::shared_ptr<runtime::LoopWorkers> workers;
  // EngineOptions::trace's callback, shared with every module loaded; null
  // when none is set.
  std::shared_ptr<api::TraceSink> trace;

  // A CUDA device needs the driver, the device, and NVRTC to build kernels.
  void open_cuda(int index) {
    auto driver_or = cuda::Driver::open(options.cuda_driver_library);
    if (auto* d = std::get_if<Diagnostic>(&driver_or)) return fail(std::move(*d));
    driver.emplace(std::move(std::get<cuda::Driver>(driver_or)));
    log->debug("cuda driver {} (version {}), {} device(s)", driver->path(), driver->version(),
               driver->device_count());
    if (auto bad = driver->check_device(index)) return fail(std::move(*bad));

    auto nvrtc_or = nvrtc::Compiler::open(options.nvrtc_library);
    if (auto* d = std::get_if<Diagnostic>(&nvrtc_or)) return fail(std::move(*d));
    nvrtc.emplace(std::move(std::get<nvrtc::Compiler>(nvrtc_or)));
    log->debug("nvrtc {} from {}", nvrtc->version(), nvrtc->path());
  }

  void fail(Diagnostic d) {
    log->error("{}", d.message);
    diagnostics.push_back(std::move(d));
  }
};

namespace api {

// A moved-from Engine has no state: it answers every load, check and run
// with this, and never crashes.
inline Diagnostic empty_engine() {
  return diag::error(diag::Code::E1612, "this engine is empty: it was moved from",
                     "use the Engine it was moved to, or make a new one");
}

}  // namespace api
}  // namespace ss
