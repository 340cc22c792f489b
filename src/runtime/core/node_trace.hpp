// A trace of a graph's nodes as the walk runs them (EngineOptions::trace):
// the API makes one this thread's for a call's span (TraceNodes), and the
// walk of a top-level graph on this thread times each node and tells it.
// With none set, the walk measures nothing: one thread-local read a graph.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "ir/graph.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime {

class NodeTrace {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~NodeTrace() = default;
  // A top-level graph's walk begins, and ends with its outputs' bytes
  // (the nodes between are its).
  virtual void graph_begins(const ir::Graph& g) = 0;
  virtual void graph_ends(const ir::Graph& g, Clock::time_point start, std::int64_t bytes) = 0;
  // Node `i` of `g` ran from `start` to `end`, into `value`; by the
  // reference operation (`reference`) or by the executor.
  virtual void node(const ir::Graph& g, std::size_t i, const Tensor& value, bool reference,
                    Clock::time_point start, Clock::time_point end) = 0;
};

// Makes `trace` this thread's for the scope; the one before comes back after.
class TraceNodes {
 public:
  explicit TraceNodes(NodeTrace* trace);
  ~TraceNodes();
  TraceNodes(const TraceNodes&) = delete;
  TraceNodes& operator=(const TraceNodes&) = delete;

 private:
  NodeTrace* previous_;
};

// This thread's trace, or null.
NodeTrace* node_trace();

}  // namespace ss::runtime
