// The workers a loaded several-device program runs on, made at load from
// its `devices` line and the host's LoadOptions.
#pragma once

#include <memory>
#include <optional>

#include "api/compiled.hpp"
#include "runtime/core/loop_workers.hpp"
#include "runtime/devices/workers.hpp"
#include "shapescript/engine.hpp"
#include "shapescript/module.hpp"

namespace ss::api {

// Null for one device without a host's communicator. For `cpu[...]`:
// in-process collectives; for `cuda[...]`: NCCL (the host's communicators
// or the library's), in-process for a GPU named twice; with a host's
// CollectiveTable: those. A failure (E1806 for communicators that don't fit,
// E1901/E1902 without the devices, E1907 without NCCL) is added to the
// program's diagnostics.
std::shared_ptr<runtime::DeviceGroup> make_devices(Compiled& c, const LoadOptions& options,
                                                   const EngineOptions& engine);

// E1908 when the host asked for a CUDA device (EngineOptions::device) that
// the program's `devices` line doesn't name: the line wins, so the host's
// request can't be met. A CPU engine (the default) yields to the line.
void check_host_device(Compiled& c, const Device& host);

// The one CUDA device a program runs on: its `devices` line's (one
// device), else the host's when the program has no line; nullopt for the
// CPU or several devices.
std::optional<int> cuda_device(const Compiled& c, const Device& host);

// What runs a program's device functions, for messages: "the CUDA
// executor" (one CUDA device, no workers), "the fast executor" or "the
// reference runtime", as the engine's options and the program decide.
std::string executor_name(const Compiled& c, const EngineOptions& engine, bool workers);

// The CUDA executor on that device; null with E1901, E1902 or E1903 added
// to the program's diagnostics when the driver, the device or NVRTC is
// missing.
std::shared_ptr<const runtime::GraphExecutor> cuda_executor_for(Compiled& c, int index,
                                                                const EngineOptions& engine);

// The executor a module's device functions run on, as the engine's options
// and the program choose (executor_name names it): CUDA's on one CUDA
// device, the fast CPU executor, or the reference interpreter. Null only
// where CUDA's can't open (its diagnostic added). `threads`: the engine's
// workers, where the fast executor's split loops run.
std::shared_ptr<const runtime::GraphExecutor> make_executor(
    Compiled& c, const EngineOptions& engine, bool workers,
    std::shared_ptr<runtime::LoopWorkers> threads = nullptr);

// The runtime's per-worker stats as the API's.
std::vector<WorkerStats> to_public(const std::vector<runtime::WorkerStats>& stats);

}  // namespace ss::api
