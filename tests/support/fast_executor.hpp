// The fast executor as the agreement tests make it: on its own threads, or,
// when SS_TEST_TASK_RUNNER=serial (ctest's
// executor_agreement_on_a_serial_task_runner), on a task runner that runs
// each loop's tasks one after another on the calling thread, as a host's
// job system may: the runner's contract says tasks never wait for each
// other, so the results must be the same.
#pragma once

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "runtime/core/loop_workers.hpp"
#include "runtime/fast/fast_executor.hpp"

namespace ss::test {

// What the serial runners ran, counted where the exit check can read them
// (atomics without a destructor: the runner itself is gone by then).
inline std::atomic<long long> serial_runs{0}, serial_tasks{0};

// Runs tasks in order, here; counts them.
class SerialRunner final : public TaskRunner {
 public:
  void run(int count, Task task, void* context) override {
    serial_runs.fetch_add(1);
    for (int i = 0; i < count; ++i) task(context, i);
    serial_tasks.fetch_add(count);
  }
};

inline bool on_serial_runner() {
  const char* v = std::getenv("SS_TEST_TASK_RUNNER");
  return v && std::strcmp(v, "serial") == 0;
}

// The process's serial runner; at exit, a run that never used it fails (so
// the ctest entry can't pass without running the loops on it).
inline const std::shared_ptr<SerialRunner>& serial_runner() {
  static const auto runner = [] {
    auto r = std::make_shared<SerialRunner>();
    std::atexit([] {
      if (serial_runs.load() == 0) {
        std::fprintf(stderr, "SS_TEST_TASK_RUNNER=serial, but no loop ran on the runner\n");
        std::_Exit(1);
      }
      std::fprintf(stderr, "the serial task runner ran %lld loops, %lld tasks\n",
                   serial_runs.load(), serial_tasks.load());
    });
    return r;
  }();
  return runner;
}

// Workers for tests that call the GEMM or a loop directly (each must make
// them the thread's, runtime::UseWorkers, or its parts run one by one).
inline runtime::LoopWorkers* loop_workers() {
  static const std::shared_ptr<runtime::LoopWorkers> workers =
      on_serial_runner() ? runtime::runner_workers(serial_runner())
                         : runtime::own_workers(std::chrono::microseconds(50));
  return workers.get();
}

inline std::unique_ptr<runtime::GraphExecutor> make_fast_executor(
    runtime::FastExecutorOptions options) {
  if (on_serial_runner() && !options.workers)
    options.workers = runtime::runner_workers(serial_runner());
  return runtime::make_fast_executor(options);
}

}  // namespace ss::test
