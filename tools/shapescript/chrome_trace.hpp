// `run --trace FILE`: the engine's trace events (ss::TraceEvent), kept as
// they come and written as Chrome's trace format (a JSON object whose
// traceEvents are complete events, "ph": "X", times in microseconds),
// which Perfetto and chrome://tracing open.
#pragma once

#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "shapescript/options.hpp"

namespace ss::cli {

class ChromeTrace {
 public:
  // The callback for EngineOptions::trace; any thread may call it.
  TraceCallback callback();
  void write(std::ostream& out) const;
  std::size_t size() const;

 private:
  struct Event {
    bool node = false;
    std::string function, node_name, op, executor;
    std::int64_t call = 0, bytes = 0;
    double start_us = 0, microseconds = 0;
    std::uint64_t thread = 0;
  };
  mutable std::mutex mutex_;
  std::vector<Event> events_;
};

}  // namespace ss::cli
