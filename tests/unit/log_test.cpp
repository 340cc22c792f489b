#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "shapescript/engine.hpp"
#include "support/log.hpp"

namespace {

struct Captured {
  std::vector<std::pair<ss::LogLevel, std::string>> messages;
  ss::LogCallback callback() {
    return
        [this](ss::LogLevel level, std::string_view text) { messages.emplace_back(level, text); };
  }
};

// Sets SHAPESCRIPT_LOG for one test and restores it after.
struct ScopedEnv {
  std::string name;
  std::string old;
  bool had;
  ScopedEnv(std::string n, const char* value) : name(std::move(n)) {
    const char* before = std::getenv(name.c_str());
    had = before != nullptr;
    if (had) old = before;
    if (value)
      ::setenv(name.c_str(), value, 1);
    else
      ::unsetenv(name.c_str());
  }
  ~ScopedEnv() {
    if (had)
      ::setenv(name.c_str(), old.c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
};

}  // namespace

TEST_CASE("log levels parse in any case, anything else is refused") {
  CHECK(ss::parse_log_level("debug") == ss::LogLevel::debug);
  CHECK(ss::parse_log_level("WARNING") == ss::LogLevel::warn);
  CHECK(ss::parse_log_level("Off") == ss::LogLevel::off);
  CHECK_FALSE(ss::parse_log_level("verbose").has_value());
  CHECK_FALSE(ss::parse_log_level("").has_value());
}

TEST_CASE("the engine is quiet by default") {
  ScopedEnv env("SHAPESCRIPT_LOG", nullptr);
  Captured captured;
  ss::Engine engine({.log_callback = captured.callback()});
  (void)engine.check_source("dim D = 4\n", "m.ss");
  CHECK(captured.messages.empty());
}

TEST_CASE("the host's level wins and messages reach its callback") {
  ScopedEnv env("SHAPESCRIPT_LOG", "off");
  Captured captured;
  ss::Engine engine({.log_level = ss::LogLevel::debug, .log_callback = captured.callback()});
  (void)engine.check_source("dim D = 4\n", "m.ss");
  REQUIRE(captured.messages.size() >= 2);
  CHECK(captured.messages[0].first == ss::LogLevel::debug);
  CHECK(captured.messages[0].second.find("engine 0.1.0 on cpu") != std::string::npos);
  CHECK(captured.messages.back().second == "checked m.ss (10 bytes): 0 error(s)");
}

TEST_CASE("SHAPESCRIPT_LOG sets the level when the host doesn't") {
  Captured captured;
  {
    ScopedEnv env("SHAPESCRIPT_LOG", "debug");
    ss::Engine engine({.log_callback = captured.callback()});
  }
  CHECK_FALSE(captured.messages.empty());

  captured.messages.clear();
  {
    ScopedEnv env("SHAPESCRIPT_LOG", "error");
    ss::Engine engine({.log_callback = captured.callback()});
  }
  CHECK(captured.messages.empty());
}

TEST_CASE("an unknown SHAPESCRIPT_LOG value is reported, not ignored") {
  ScopedEnv env("SHAPESCRIPT_LOG", "loud");
  Captured captured;
  ss::Engine engine({.log_callback = captured.callback()});
  REQUIRE(captured.messages.size() == 1);
  CHECK(captured.messages[0].first == ss::LogLevel::warn);
  CHECK(captured.messages[0].second.find("SHAPESCRIPT_LOG=`loud` is not a level") !=
        std::string::npos);
  CHECK(ss::support::resolve_log_level(std::nullopt) == ss::LogLevel::warn);
}
