// EngineOptions::trace: the engine's callback, and one call's trace, which
// times the call and, as this thread's node trace (runtime/core/node_trace),
// each node its graph walk runs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/core/node_trace.hpp"
#include "shapescript/options.hpp"

namespace ss::api {

// The engine's: shared by every module it loads.
struct TraceSink {
  TraceCallback callback;
  std::chrono::steady_clock::time_point born;
  mutable std::atomic<std::int64_t> calls{0};
};

class CallTrace final : public runtime::NodeTrace {
 public:
  // Numbers the call and starts its clock; nodes the walk runs on this
  // thread from now on are told to the sink. `graphs_on` not empty: the
  // call is a controller's (or a run's), and each graph it runs is a call
  // of its own on that executor, numbered, whose nodes share its number.
  CallTrace(const TraceSink& sink, std::string_view function, std::string_view executor,
            std::string_view graphs_on = {});
  CallTrace(const CallTrace&) = delete;
  CallTrace& operator=(const CallTrace&) = delete;
  // The call's own event (its outputs' bytes).
  void finish(std::int64_t bytes);

  void graph_begins(const ir::Graph& g) override;
  void graph_ends(const ir::Graph& g, Clock::time_point start, std::int64_t bytes) override;
  void node(const ir::Graph& g, std::size_t i, const runtime::Tensor& value, bool reference,
            Clock::time_point start, Clock::time_point end) override;

 private:
  double since_born(Clock::time_point t) const;
  void tell(TraceEvent::Kind kind, std::string_view function, std::string_view node,
            std::string_view op, std::string_view executor, std::int64_t call,
            Clock::time_point start, Clock::time_point end, std::int64_t bytes) const;

  const TraceSink& sink_;
  std::string_view function_, executor_;
  std::string_view graph_executor_;  // a graph's nodes' executor, when graphs are calls
  const bool graphs_are_calls_;
  std::int64_t call_;
  std::int64_t graph_call_ = 0;  // the graph running now, when graphs are calls
  Clock::time_point start_;
  runtime::TraceNodes scope_;
};

}  // namespace ss::api
