#include "runtime/core/node_trace.hpp"

namespace ss::runtime {

namespace {
thread_local NodeTrace* current = nullptr;
}  // namespace

TraceNodes::TraceNodes(NodeTrace* trace) : previous_(current) {
  current = trace;
}

TraceNodes::~TraceNodes() {
  current = previous_;
}

NodeTrace* node_trace() {
  return current;
}

}  // namespace ss::runtime
