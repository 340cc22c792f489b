#include "api/call_trace.hpp"

#include <cstdio>
#include <string>

#include "support/host_callback.hpp"

namespace ss::api {

namespace {

// A small number per thread, from 1, in the order threads first traced.
std::uint64_t thread_number() {
  static std::atomic<std::uint64_t> last{0};
  thread_local const std::uint64_t mine = ++last;
  return mine;
}

}  // namespace

CallTrace::CallTrace(const TraceSink& sink, std::string_view function, std::string_view executor,
                     std::string_view graphs_on)
    : sink_(sink),
      function_(function),
      executor_(executor),
      graph_executor_(graphs_on.empty() ? executor : graphs_on),
      graphs_are_calls_(!graphs_on.empty()),
      call_(++sink.calls),
      start_(Clock::now()),
      scope_(this) {}

double CallTrace::since_born(Clock::time_point t) const {
  return std::chrono::duration<double, std::micro>(t - sink_.born).count();
}

void CallTrace::tell(TraceEvent::Kind kind, std::string_view function, std::string_view node,
                     std::string_view op, std::string_view executor, std::int64_t call,
                     Clock::time_point start, Clock::time_point end, std::int64_t bytes) const {
  TraceEvent e;
  e.kind = kind;
  e.function = function;
  e.node = node;
  e.op = op;
  e.executor = executor;
  e.call = call;
  e.start_us = since_born(start);
  e.microseconds = std::chrono::duration<double, std::micro>(end - start).count();
  e.bytes = bytes;
  e.thread = thread_number();
  runtime::host_call("the trace callback", [&] { sink_.callback(e); });
}

void CallTrace::graph_begins(const ir::Graph& /*g*/) {
  if (graphs_are_calls_) graph_call_ = ++sink_.calls;
}

void CallTrace::graph_ends(const ir::Graph& g, Clock::time_point start, std::int64_t bytes) {
  if (!graphs_are_calls_) return;  // the call's own event says it
  tell(TraceEvent::Kind::call, g.name.empty() ? function_ : std::string_view(g.name), "", "call",
       graph_executor_, graph_call_, start, Clock::now(), bytes);
}

void CallTrace::node(const ir::Graph& g, std::size_t i, const runtime::Tensor& value,
                     bool reference, Clock::time_point start, Clock::time_point end) {
  char name[24];
  std::snprintf(name, sizeof name, "%%%zu", i);
  const std::int64_t bytes =
      value.buffer() ? value.size() * static_cast<std::int64_t>(runtime::dtype_size(value.dtype()))
                     : 0;
  const std::string op = ir::op_label(g.nodes[i]);
  tell(TraceEvent::Kind::node, g.name.empty() ? function_ : std::string_view(g.name), name, op,
       reference ? "reference" : graph_executor_, graphs_are_calls_ ? graph_call_ : call_, start,
       end, bytes);
}

void CallTrace::finish(std::int64_t bytes) {
  tell(TraceEvent::Kind::call, function_, "", "call", executor_, call_, start_, Clock::now(),
       bytes);
}

}  // namespace ss::api
