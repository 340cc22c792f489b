// Where the parallel loops' parts run (runtime/core/helper_threads.hpp):
// an engine's own threads, or the host's job system (TaskRunner). An
// engine makes one; its modules' executors share it, and the executor
// makes it this thread's for the span of each node it runs (UseWorkers),
// so the loops deep inside a product or a kernel find it without being
// handed it.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "shapescript/options.hpp"
#include "support/function_ref.hpp"

namespace ss::runtime {

class LoopWorkers {
 public:
  virtual ~LoopWorkers() = default;
  // Runs job(0), ..., job(parts - 1) and returns when all are done; the
  // first exception a part threw is thrown here after. Parts never wait
  // for each other: when the threads are busy (another caller has them),
  // they run one after another on this thread.
  virtual void run(int parts, support::FunctionRef<void(int)> job) = 0;
  // Runs `task` later, on another thread: the runner's post where it
  // takes it, else the engine's own "ss-async" thread (started on the
  // first task, joined after the last one queued when the workers go).
  virtual void post(std::function<void()> task) = 0;
  // Threads started so far for the loops and for post (the tests count).
  virtual int threads_started() const = 0;
};

// The library's own threads, named ss-worker-N, started as parts first
// need them; an idle one polls for `spin` before it sleeps.
std::shared_ptr<LoopWorkers> own_workers(std::chrono::microseconds spin);
// The host's job system: the loops' parts run as its tasks.
std::shared_ptr<LoopWorkers> runner_workers(std::shared_ptr<TaskRunner> runner);

// Makes `workers` this thread's for the scope (null: none, so the loops
// run on this thread alone); the one before comes back after.
class UseWorkers {
 public:
  explicit UseWorkers(LoopWorkers* workers);
  ~UseWorkers();
  UseWorkers(const UseWorkers&) = delete;
  UseWorkers& operator=(const UseWorkers&) = delete;

 private:
  LoopWorkers* previous_;
};

// This thread's workers; null outside a UseWorkers scope (on a worker
// thread, say: a part's own loops run where the part runs).
LoopWorkers* current_workers();

}  // namespace ss::runtime
