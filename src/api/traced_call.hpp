// A call as the API runs it: timed, when the engine has a trace, its nodes
// as its walk runs them, then the call itself (its results' bytes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/module_impl.hpp"

namespace ss::api {

inline std::int64_t bytes_of(const Tensor& t) {
  const std::int64_t each = t.dtype() == DType::boolean                           ? 1
                            : t.dtype() == DType::bf16 || t.dtype() == DType::f16 ? 2
                                                                                  : 4;
  return t.data() ? t.size() * each : 0;
}

// A call, timed when the engine has a trace: its nodes as its walk runs
// them, then the call (its results' bytes).
template <class Run>
CallResult traced(const Module::Impl& m, const std::string& function,
                  const std::vector<Tensor>* into, const Run& run) {
  if (!m.trace) return run();
  const std::string_view on = m.runs_on(function);
  // A controller function's graphs are calls of their own.
  CallTrace trace(*m.trace, function, on, on == "controller" ? m.graphs_run_on() : "");
  CallResult r = run();
  std::int64_t bytes = 0;
  for (const Tensor& t : r.outputs) bytes += bytes_of(t);
  for (const Value& v : r.values)
    if (v.kind() == Value::Kind::tensor) bytes += bytes_of(v.tensor());
  if (into)
    for (const Tensor& t : *into) bytes += bytes_of(t);
  trace.finish(bytes);
  return r;
}

}  // namespace ss::api
