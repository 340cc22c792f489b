#include "runtime/core/loop_workers.hpp"

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/core/helper_threads.hpp"
#include "support/host_callback.hpp"

namespace ss::runtime {

namespace {

thread_local LoopWorkers* current = nullptr;

void name_this_thread(const std::string& name) {
  // (Linux keeps 15 characters of a thread's name)
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

// The first exception of a run's parts, kept until they are all done.
class FirstFailure {
 public:
  void keep() {
    std::lock_guard lock(mutex_);
    if (!failed_) failed_ = std::current_exception();
  }
  void rethrow() {
    if (failed_) std::rethrow_exception(failed_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr failed_;
};

// One thread for posted tasks, in the order they came, started with the
// first one; the tasks still queued run before it ends. A task may hold
// the last owner of these workers (a call_async holds its module): the
// thread keeps the queue alive itself, and when the workers go on this
// very thread it is let go to finish rather than joined.
class AsyncThread {
 public:
  ~AsyncThread() {
    {
      std::lock_guard lock(state_->mutex);
      state_->stop = true;
    }
    state_->wake.notify_all();
    if (!thread_.joinable()) return;
    if (thread_.get_id() == std::this_thread::get_id())
      thread_.detach();
    else
      thread_.join();
  }

  void post(std::function<void()> task) {
    {
      std::lock_guard lock(state_->mutex);
      state_->queue.push_back(std::move(task));
      if (!thread_.joinable()) thread_ = std::thread([state = state_] { loop(*state); });
    }
    state_->wake.notify_one();
  }

  bool started() const {
    std::lock_guard lock(state_->mutex);
    return thread_.joinable();
  }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::function<void()>> queue;
    bool stop = false;
  };

  static void loop(State& s) {
    name_this_thread("ss-async");
    std::unique_lock lock(s.mutex);
    while (true) {
      s.wake.wait(lock, [&] { return s.stop || !s.queue.empty(); });
      if (s.queue.empty()) return;  // stopping, nothing left
      {
        auto task = std::move(s.queue.front());
        s.queue.pop_front();
        lock.unlock();
        task();  // (a task reports its own failures: call_async's complete a future)
      }          // (the task, and what it held, gone before the lock is taken again)
      lock.lock();
    }
  }

  std::shared_ptr<State> state_ = std::make_shared<State>();
  std::thread thread_;
};

// The engine's own threads, kept between calls (starting threads for each
// product costs more than a small product), woken for each split loop. A
// thread that finished polls a while before it sleeps, and so does the
// caller waiting for it: a training step's products come tens of
// microseconds apart, and waking a sleeping thread costs about that much.
class OwnWorkers final : public LoopWorkers {
 public:
  explicit OwnWorkers(std::chrono::microseconds spin) : spin_(spin) {}

  ~OwnWorkers() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void run(int parts, support::FunctionRef<void(int)> job) override {
    FirstFailure failure;
    const auto part = [&](int p) {
      try {
        job(p);
      } catch (...) {
        failure.keep();
      }
    };
    if (!run_on_threads(parts, part))
      for (int p = 0; p < parts; ++p) part(p);  // another caller has the threads
    failure.rethrow();
  }

  void post(std::function<void()> task) override { async_.post(std::move(task)); }

  int threads_started() const override {
    std::lock_guard lock(mutex_);
    return static_cast<int>(threads_.size()) + (async_.started() ? 1 : 0);
  }

 private:
  // Runs job(0) here and job(1..parts-1) on the threads, and waits for
  // all. False, having run nothing, when another caller has the threads.
  bool run_on_threads(int parts, support::FunctionRef<void(int)> job) {
    std::unique_lock busy(busy_, std::try_to_lock);
    if (!busy) return false;
    {
      std::lock_guard lock(mutex_);
      while (static_cast<int>(threads_.size()) < parts - 1)
        threads_.emplace_back(
            [this, index = static_cast<int>(threads_.size()) + 1] { loop(index); });
      job_ = job;
      active_ = parts;
      pending_.store(parts - 1);
      generation_.fetch_add(1, std::memory_order_release);
    }
    start_.notify_all();
    job(0);
    if (!spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; }, spin_)) {
      std::unique_lock lock(mutex_);
      done_.wait(lock, [&] { return pending_.load() == 0; });
    }
    return true;
  }

  void loop(int index) {
    name_this_thread("ss-worker-" + std::to_string(index));
    std::uint64_t seen = 0;
    while (true) {
      const auto fresh = [&] {
        return stop_.load() || generation_.load(std::memory_order_acquire) != seen;
      };
      if (!spin_until(fresh, spin_)) {
        std::unique_lock lock(mutex_);
        start_.wait(lock, fresh);
      }
      if (stop_) return;
      std::optional<support::FunctionRef<void(int)>> job;
      {
        std::lock_guard lock(mutex_);  // job_ and active_ belong to this generation
        seen = generation_.load();
        if (index < active_) job = job_;
      }
      if (!job) continue;  // not needed this time
      (*job)(index);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard lock(mutex_);
        done_.notify_all();
      }
    }
  }

  const std::chrono::microseconds spin_;
  std::mutex busy_;  // one split loop at a time
  mutable std::mutex mutex_;
  std::condition_variable start_, done_;
  std::vector<std::thread> threads_;
  std::optional<support::FunctionRef<void(int)>> job_;
  int active_ = 0;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  AsyncThread async_;
};

// The host's job system: each run's parts are its tasks.
class RunnerWorkers final : public LoopWorkers {
 public:
  explicit RunnerWorkers(std::shared_ptr<TaskRunner> runner) : runner_(std::move(runner)) {}

  void run(int parts, support::FunctionRef<void(int)> job) override {
    struct Run {
      support::FunctionRef<void(int)> job;
      FirstFailure failure;
    } run{job, {}};
    host_call("TaskRunner::run", [&] {
      runner_->run(
          parts,
          [](void* context, int index) {
            auto* r = static_cast<Run*>(context);
            try {
              r->job(index);
            } catch (...) {  // never into the host's job system
              r->failure.keep();
            }
          },
          &run);
    });
    run.failure.rethrow();
  }

  void post(std::function<void()> task) override {
    // The task crosses to the host's thread on the heap, as a reference
    // the run frees. `claimed` settles a post that threw: if the host ran
    // the task already, it stands; otherwise the host didn't keep it (a
    // runner's post that throws must not have queued the task), so the
    // reference is freed here and the call fails.
    struct Held {
      std::function<void()> task;
      std::atomic<bool> claimed{false};
    };
    auto held = std::make_shared<Held>();
    held->task = std::move(task);
    auto* context = new std::shared_ptr<Held>(held);
    const auto run_held = [](void* c, int /*index*/) {
      std::unique_ptr<std::shared_ptr<Held>> mine(static_cast<std::shared_ptr<Held>*>(c));
      if (!(*mine)->claimed.exchange(true)) (*mine)->task();
    };
    bool queued = false;
    try {
      queued = runner_->post(run_held, context);
    } catch (...) {
      const std::string what = current_exception_text();
      if (held->claimed.exchange(true)) return;  // it ran, then the host threw
      delete context;
      throw HostCallbackFailed("TaskRunner::post", what);
    }
    if (queued) return;
    delete context;  // declined: our own thread runs it
    async_.post(std::move(held->task));
  }

  int threads_started() const override { return async_.started() ? 1 : 0; }

 private:
  std::shared_ptr<TaskRunner> runner_;
  AsyncThread async_;
};

}  // namespace

std::shared_ptr<LoopWorkers> own_workers(std::chrono::microseconds spin) {
  return std::make_shared<OwnWorkers>(spin);
}

std::shared_ptr<LoopWorkers> runner_workers(std::shared_ptr<TaskRunner> runner) {
  return std::make_shared<RunnerWorkers>(std::move(runner));
}

UseWorkers::UseWorkers(LoopWorkers* workers) : previous_(current) {
  current = workers;
}

UseWorkers::~UseWorkers() {
  current = previous_;
}

LoopWorkers* current_workers() {
  return current;
}

}  // namespace ss::runtime
