#include "support/log.hpp"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <string>

namespace ss {

std::optional<LogLevel> parse_log_level(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "trace") return LogLevel::trace;
  if (lower == "debug") return LogLevel::debug;
  if (lower == "info") return LogLevel::info;
  if (lower == "warn" || lower == "warning") return LogLevel::warn;
  if (lower == "error") return LogLevel::error;
  if (lower == "off") return LogLevel::off;
  return std::nullopt;
}

}  // namespace ss

namespace ss::support {
namespace {

spdlog::level::level_enum to_spdlog(LogLevel level) {
  switch (level) {
    case LogLevel::trace:
      return spdlog::level::trace;
    case LogLevel::debug:
      return spdlog::level::debug;
    case LogLevel::info:
      return spdlog::level::info;
    case LogLevel::warn:
      return spdlog::level::warn;
    case LogLevel::error:
      return spdlog::level::err;
    case LogLevel::off:
      return spdlog::level::off;
  }
  return spdlog::level::off;
}

LogLevel from_spdlog(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return LogLevel::trace;
    case spdlog::level::debug:
      return LogLevel::debug;
    case spdlog::level::info:
      return LogLevel::info;
    case spdlog::level::warn:
      return LogLevel::warn;
    case spdlog::level::err:
    case spdlog::level::critical:
      return LogLevel::error;
    default:
      return LogLevel::off;
  }
}

using Counter = std::shared_ptr<std::atomic<std::int64_t>>;

// Hands each message, unformatted, to the host. What the host's callback
// throws is counted, never reported (it would go to the same callback)
// nor left to spdlog, which would print it to standard error.
class CallbackSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  CallbackSink(LogCallback callback, Counter thrown)
      : callback_(std::move(callback)), thrown_(std::move(thrown)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    try {
      callback_(from_spdlog(msg.level), std::string_view(msg.payload.data(), msg.payload.size()));
    } catch (...) {
      thrown_->fetch_add(1, std::memory_order_relaxed);
    }
  }
  void flush_() override {}

 private:
  LogCallback callback_;
  Counter thrown_;
};

// An engine's logger, with the count of the host's callbacks that threw
// where no call waited on them.
class EngineLogger final : public spdlog::logger {
 public:
  EngineLogger(std::string name, spdlog::sink_ptr sink, Counter counter)
      : spdlog::logger(std::move(name), std::move(sink)), thrown(std::move(counter)) {}
  Counter thrown;
};

}  // namespace

const char* log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::trace:
      return "trace";
    case LogLevel::debug:
      return "debug";
    case LogLevel::info:
      return "info";
    case LogLevel::warn:
      return "warn";
    case LogLevel::error:
      return "error";
    case LogLevel::off:
      return "off";
  }
  return "off";
}

LogLevel resolve_log_level(const std::optional<LogLevel>& requested, std::string* bad_env) {
  if (requested) return *requested;
  const char* env = std::getenv("SHAPESCRIPT_LOG");
  if (!env || !*env) return LogLevel::off;
  if (auto level = parse_log_level(env)) return *level;
  if (bad_env) *bad_env = env;
  return LogLevel::warn;
}

LoggerPtr make_logger(const EngineOptions& options) {
  static std::atomic<unsigned> engines{0};
  const std::string name = "shapescript#" + std::to_string(engines++);

  auto thrown = std::make_shared<std::atomic<std::int64_t>>(0);
  spdlog::sink_ptr sink;
  if (options.log_callback) {
    sink = std::make_shared<CallbackSink>(options.log_callback, thrown);
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    sink->set_pattern("shapescript: %l: %v");
  }
  auto logger = std::make_shared<EngineLogger>(name, std::move(sink), thrown);
  // Nothing spdlog meets (a sink's failure) goes to standard error.
  logger->set_error_handler([thrown](const std::string&) { thrown->fetch_add(1); });

  std::string bad_env;
  logger->set_level(to_spdlog(resolve_log_level(options.log_level, &bad_env)));
  if (!bad_env.empty())
    logger->warn("SHAPESCRIPT_LOG=`{}` is not a level; use trace, debug, info, warn, error or off",
                 bad_env);
  return logger;
}

void unwaited_throw(const LoggerPtr& log, std::string_view callback, const std::string& what) {
  if (!log) return;
  if (auto* engine = dynamic_cast<EngineLogger*>(log.get()))
    engine->thrown->fetch_add(1, std::memory_order_relaxed);
  log->warn("{} threw, and no call waited on it: {}", callback, what);
}

std::int64_t unwaited_throws(const LoggerPtr& log) {
  auto* engine = dynamic_cast<EngineLogger*>(log.get());
  return engine ? engine->thrown->load(std::memory_order_relaxed) : 0;
}

}  // namespace ss::support
