// A function the host gave the library (a sink, a trace or log callback,
// a task runner, a file reader, a code cache, print, progress, stats, a
// done callback) may throw. Where a call waits on it, what it throws
// becomes HostCallbackFailed, naming the callback, and the call fails with
// E1614; nothing the host throws reaches std::terminate.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace ss::support {

struct HostCallbackFailed : std::runtime_error {
  HostCallbackFailed(std::string callback_name, const std::string& what)
      : std::runtime_error(what), callback(std::move(callback_name)) {}
  std::string callback;  // "the trace callback", "the sink `metrics`"
};

// What an exception in flight says: its what(), or that it isn't a
// std::exception. Call inside a catch block.
std::string current_exception_text();

// f(), whatever it throws rethrown as HostCallbackFailed naming `callback`.
template <class F>
decltype(auto) host_call(const char* callback, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const HostCallbackFailed&) {
    throw;  // a callback inside the callback (a nested call) already named
  } catch (...) {
    throw HostCallbackFailed(callback, current_exception_text());
  }
}

}  // namespace ss::support

namespace ss::runtime {
using support::current_exception_text;
using support::host_call;
using support::HostCallbackFailed;
}  // namespace ss::runtime
