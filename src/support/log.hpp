// Logging through spdlog: one logger per Engine (nothing registered globally),
// writing to the host's callback or to standard error. Quiet by default: the
// level comes from the host, else SHAPESCRIPT_LOG, else off.
#pragma once

#include <spdlog/logger.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "shapescript/engine.hpp"
#include "support/host_callback.hpp"

namespace ss::support {

using LoggerPtr = std::shared_ptr<spdlog::logger>;

// The level an engine logs at: the host's choice, else SHAPESCRIPT_LOG, else
// off. An unrecognised SHAPESCRIPT_LOG gives warn, and *bad_env (when given)
// receives the value so the caller can say so.
LogLevel resolve_log_level(const std::optional<LogLevel>& requested,
                           std::string* bad_env = nullptr);

LoggerPtr make_logger(const EngineOptions& options);

const char* log_level_name(LogLevel level);

// A host's callback threw where no call waited on it (a done callback):
// counted in the engine's stats (Engine::stats) and reported to the log.
// A throw from the log callback itself is counted alone, by its sink.
void unwaited_throw(const LoggerPtr& log, std::string_view callback, const std::string& what);
std::int64_t unwaited_throws(const LoggerPtr& log);

// f(), a host's callback no call waits on: what it throws goes to
// unwaited_throw.
template <class F>
void unwaited_call(const LoggerPtr& log, std::string_view callback, F&& f) {
  try {
    std::forward<F>(f)();
  } catch (...) {
    unwaited_throw(log, callback, current_exception_text());
  }
}

}  // namespace ss::support
