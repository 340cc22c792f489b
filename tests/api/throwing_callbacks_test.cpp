// Every function a host gives the library may throw. Where a call waits on
// it, the call fails with E1614 naming it (host functions keep E1608); a
// throw nobody waits on (a done callback, the log callback) is counted in
// Engine::stats and reported to the log; nothing reaches std::terminate
// or standard error, and the next call runs.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <future>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "shapescript/shapescript.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

const char* const kProgram = R"(dim D = 64
dim H = 256

sink metrics

model Net:
    param w: [D H] = normal(std=0.1)

fn act(m: Net, x: [b D]) -> [b H] = relu(x @ m.w)

fn twice(x: [b D]) -> [b D] = x * 2.0

fn main():
    write(metrics, loss=1.0)
    print("hello")
)";

std::string first_code(const std::vector<ss::Diagnostic>& ds) {
  return ds.empty() ? std::string("(none)") : ds[0].code;
}

std::string first_message(const std::vector<ss::Diagnostic>& ds) {
  return ds.empty() ? std::string() : ds[0].message;
}

// What the process writes to standard error while `f` runs.
template <class F>
std::string stderr_of(F f) {
  std::fflush(stderr);
  char name[] = "/tmp/ss-stderr-XXXXXX";
  const int file = ::mkstemp(name);
  REQUIRE(file >= 0);
  const int saved = ::dup(2);
  ::dup2(file, 2);
  f();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  ::close(file);
  const std::string text = ss::test::read_file(name);
  ::unlink(name);
  return text;
}

// A runner whose run or post throws while `fail` says so.
class ThrowingRunner final : public ss::TaskRunner {
 public:
  void run(int count, Task task, void* context) override {
    if (fail_run) throw std::runtime_error("the job system is shutting down");
    for (int i = 0; i < count; ++i) task(context, i);
  }
  bool post(Task task, void* context) override {
    if (fail_post) throw std::runtime_error("the job queue is full");
    task(context, 0);
    return true;
  }
  std::atomic<bool> fail_run{false}, fail_post{false};
};

}  // namespace

TEST_CASE("a throwing done callback of call_async or Batcher::submit is counted, never fatal") {
  std::vector<std::string> logged;
  const ss::Engine engine(
      {.log_level = ss::LogLevel::warn,
       .log_callback = [&](ss::LogLevel, std::string_view m) { logged.emplace_back(m); }});
  const ss::Module mod = engine.load_source(kProgram, "cb.ss");
  REQUIRE(mod);
  std::vector<float> x(64, 1.0f);
  std::promise<void> called;
  mod.call_async("twice", {ss::Tensor::view(x.data(), {1, 64})}, [&](ss::CallResult r) {
    CHECK(r);
    called.set_value();
    throw std::runtime_error("the host's handler failed");
  });
  called.get_future().wait();
  // The throw is counted after the callback returns: wait for it.
  for (int i = 0; i < 1000 && engine.stats().unwaited_callback_throws < 1; ++i) ::usleep(1000);
  CHECK(engine.stats().unwaited_callback_throws == 1);
  const ss::Value net = mod.make("Net");
  ss::Batcher batcher(mod, "act", {net}, {.max_batch = 2});
  std::vector<float> out(256);
  batcher.submit({ss::Tensor::view(x.data(), {64})}, {ss::Tensor::view(out.data(), {256})},
                 [](std::vector<ss::Diagnostic>) { throw 42; });
  batcher.flush();
  CHECK(engine.stats().unwaited_callback_throws == 2);
  bool warned = false;
  for (const auto& line : logged)
    warned = warned || line.find("Batcher::submit's done callback threw") != std::string::npos;
  CHECK(warned);
  // Both go on.
  CHECK(batcher.run({ss::Tensor::view(x.data(), {64})}, {ss::Tensor::view(out.data(), {256})})
            .empty());
  CHECK(mod.call_async("twice", {ss::Tensor::view(x.data(), {1, 64})}).get());
}

TEST_CASE("a throwing log callback is counted, and nothing reaches standard error") {
  std::string err = stderr_of([] {
    const ss::Engine engine(
        {.log_level = ss::LogLevel::debug, .log_callback = [](ss::LogLevel, std::string_view) {
           throw std::runtime_error("the log is closed");
         }});
    const ss::Module mod = engine.load_source(kProgram, "cb.ss");
    CHECK(mod);
    CHECK(engine.stats().unwaited_callback_throws > 0);
  });
  CHECK(err.empty());
}

TEST_CASE("a throwing trace callback fails its call with E1614, and the next call runs") {
  std::atomic<bool> fail{true};
  const ss::Engine engine({.trace = [&](const ss::TraceEvent&) {
    if (fail) throw std::runtime_error("the profiler's buffer is full");
  }});
  const ss::Module mod = engine.load_source(kProgram, "cb.ss");
  REQUIRE(mod);
  std::vector<float> x(128, 1.0f);
  for (int k = 0; k < 3; ++k) {
    const auto r = mod.call("twice", {ss::Tensor::view(x.data(), {2, 64})});
    CHECK(first_code(r.diagnostics) == "E1614");
    CHECK(first_message(r.diagnostics).find("the trace callback threw") != std::string::npos);
    CHECK(first_message(r.diagnostics).find("buffer is full") != std::string::npos);
  }
  fail = false;
  const auto r = mod.call("twice", {ss::Tensor::view(x.data(), {2, 64})});
  REQUIRE(r);
  CHECK(r.tensor().to_floats() == std::vector<float>(128, 2.0f));
}

TEST_CASE("a throwing TaskRunner's run or post fails the call waiting on it with E1614") {
  auto runner = std::make_shared<ThrowingRunner>();
  const ss::Engine engine({.threads = 4, .task_runner = runner});
  const ss::Module mod = engine.load_source(kProgram, "cb.ss");
  REQUIRE(mod);
  const ss::Value net = mod.make("Net");
  std::vector<float> x(512 * 64, 0.5f);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) * 0.1f;
  const ss::Tensor big = ss::Tensor::view(x.data(), {512, 64});
  const auto good = mod.call("act", {net, big});
  REQUIRE(good);
  runner->fail_run = true;
  const auto failed = mod.call("act", {net, big});
  CHECK(first_code(failed.diagnostics) == "E1614");
  CHECK(first_message(failed.diagnostics).find("TaskRunner::run") != std::string::npos);
  runner->fail_run = false;
  const auto again = mod.call("act", {net, big});
  REQUIRE(again);
  CHECK(again.tensor().to_floats() == good.tensor().to_floats());
  runner->fail_post = true;
  const auto posted = mod.call_async("twice", {ss::Tensor::view(x.data(), {1, 64})}).get();
  CHECK(first_code(posted.diagnostics) == "E1614");
  CHECK(first_message(posted.diagnostics).find("TaskRunner::post") != std::string::npos);
  runner->fail_post = false;
  CHECK(mod.call_async("twice", {ss::Tensor::view(x.data(), {1, 64})}).get());
}

TEST_CASE("a throwing sink, print, executor_stats or FileAccess::read fails its run with E1614") {
  const ss::test::TempDir dir;
  const std::string path = dir.write("cb.ss", kProgram);
  const ss::Engine engine;
  const auto print = [](std::string_view) {};
  ss::LoadOptions options;
  options.sinks["metrics"] = [](const ss::SinkRecord&) { throw std::logic_error("no room"); };
  auto d = engine.run_file(path, "main", print, {}, options);
  CHECK(first_code(d) == "E1614");
  CHECK(first_message(d).find("the sink `metrics` threw: no room") != std::string::npos);
  // A write that failed (std::system_error) is a file that can't be written.
  options.sinks["metrics"] = [](const ss::SinkRecord&) {
    throw std::system_error(ENOSPC, std::generic_category(), "can't write `m.csv`");
  };
  CHECK(first_code(engine.run_file(path, "main", print, {}, options)) == "E1706");
  options.sinks["metrics"] = [](const ss::SinkRecord&) {};
  d = engine.run_file(
      path, "main", [](std::string_view) { throw std::runtime_error("the console is gone"); }, {},
      options);
  CHECK(first_code(d) == "E1614");
  CHECK(first_message(d).find("the print callback") != std::string::npos);
  options.executor_stats = [](const ss::ExecutorStats&) { throw std::runtime_error("full"); };
  CHECK(first_code(engine.run_file(path, "main", print, {}, options)) == "E1614");
  options.executor_stats = {};
  CHECK(engine.run_file(path, "main", print, {}, options).empty());
  // The program's own file, read through the host's FileAccess.
  options.files.read = [](const std::string&, std::string*, std::string*) -> bool {
    throw std::runtime_error("the archive is corrupt");
  };
  const ss::Module m = engine.load_file(path, options);
  CHECK(first_code(m.diagnostics()) == "E1614");
  CHECK(first_message(m.diagnostics()).find("FileAccess::read") != std::string::npos);
}

TEST_CASE("a throwing CodeCache::load or store fails the load waiting on it with E1614") {
  for (const bool on_store : {false, true}) {
    CAPTURE(on_store);
    ss::EngineOptions options{.jit_library = ss::test::built::jit};
    if (on_store)
      options.code_cache.store = [](const std::string&, std::string_view) {
        throw std::runtime_error("the cache's disk is full");
      };
    else
      options.code_cache.load = [](const std::string&, std::string*) -> bool {
        throw std::runtime_error("the cache is corrupt");
      };
    const ss::Engine engine(options);
    // A kernel no other test compiled: the process's own copy of code comes
    // before the host's cache.
    const std::string source = "dim D = 64\nfn odd(x: [b D]) -> [b D] = tanh(x * 1.3579" +
                               std::to_string(on_store) + " + 0.2468)\n";
    const ss::Module mod = engine.load_source(source, "odd.ss");
    if (std::string(ss::test::built::jit).empty()) return;  // nothing compiled, nothing cached
    CHECK(first_code(mod.diagnostics()) == "E1614");
    CHECK(
        first_message(mod.diagnostics()).find(on_store ? "CodeCache::store" : "CodeCache::load") !=
        std::string::npos);
  }
}
