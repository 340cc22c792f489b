// The workers a loaded several-device program runs on, made at load from
// its `devices` line and the host's LoadOptions.
#pragma once

#include <memory>
#include <optional>

#include "api/compiled.hpp"
#include "runtime/workers.hpp"
#include "shapescript/module.hpp"

namespace ss::api {

// Null for one device. For `cpu[...]`: in-process collectives; with a
// host's CollectiveTable: those (E1806 when its ranks don't fit). A failure
// is added to the program's diagnostics.
std::shared_ptr<runtime::DeviceGroup> make_devices(Compiled& c, const LoadOptions& options);

// The runtime's per-worker stats as the API's.
std::vector<WorkerStats> to_public(const std::vector<runtime::WorkerStats>& stats);

}  // namespace ss::api
