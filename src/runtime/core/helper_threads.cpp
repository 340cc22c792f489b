#include "runtime/core/helper_threads.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "support/inline_vector.hpp"

namespace ss::runtime {

bool spin_until(support::FunctionRef<bool()> ready) {
  constexpr auto kSpin = std::chrono::microseconds(200);
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 1;; ++i) {
    if (ready()) return true;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
    if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return false;
  }
}

namespace {

// Helper threads kept between calls (starting threads for each product
// costs more than a small product), woken for each split product. A helper
// that finished spins a while before it sleeps, and so does the caller
// waiting for the helpers: a training step's products come tens of
// microseconds apart, and waking a sleeping thread costs about that much.
class Helpers {
 public:
  ~Helpers() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (auto& t : threads_) t.join();
  }

  // Runs job(0) here and job(1..parts-1) on helpers, and waits for all.
  // False, having run nothing, when another caller has the helpers.
  bool run(int parts, support::FunctionRef<void(int)> job) {
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
    if (!spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock lock(mutex_);
      done_.wait(lock, [&] { return pending_.load() == 0; });
    }
    return true;
  }

 private:
  void loop(int index) {
    std::uint64_t seen = 0;
    while (true) {
      const auto fresh = [&] {
        return stop_.load() || generation_.load(std::memory_order_acquire) != seen;
      };
      if (!spin_until(fresh)) {
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

  std::mutex busy_;  // one split product at a time
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::vector<std::thread> threads_;
  std::optional<support::FunctionRef<void(int)>> job_;
  int active_ = 0;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
};

}  // namespace

void run_parts(int parts, support::FunctionRef<void(int)> job) {
  if (parts <= 1) {
    if (parts == 1) job(0);
    return;
  }
  static Helpers helpers;
  if (!helpers.run(parts, job))
    for (int p = 0; p < parts; ++p) job(p);  // helpers busy
}

void for_rows(std::int64_t rows, std::int64_t min_rows, int threads,
              support::FunctionRef<void(std::int64_t, std::int64_t)> body) {
  const std::int64_t parts = std::max<std::int64_t>(
      1, std::min<std::int64_t>(threads, rows / std::max<std::int64_t>(1, min_rows)));
  if (parts <= 1) return body(0, rows);
  const std::int64_t step = (rows + parts - 1) / parts;
  // (on the heap only past 16 parts: a call on the helpers allocates nothing)
  support::InlineVector<std::exception_ptr, 16> failed(static_cast<std::size_t>(parts));
  run_parts(static_cast<int>(parts), [&](int p) {
    try {
      body(p * step, std::min(rows, (p + 1) * step));
    } catch (...) {
      failed[static_cast<std::size_t>(p)] = std::current_exception();
    }
  });
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace ss::runtime
