#include "runtime/devices/collectives.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <mutex>
#include <vector>

#include "runtime/core/helper_threads.hpp"

namespace ss::runtime {
namespace {

// A rendezvous per collective: each worker leaves its buffer and waits; the
// last to arrive does the work for all of them while they wait, then wakes
// them. A generation counter tells one collective from the next. With a
// link to other processes, that work includes the exchange with them, done
// outside the lock (an abort must reach it) and bounded by the link's own
// timeout, so the waiters don't time out while it runs.
class InProcess final : public Collectives {
 public:
  InProcess(int workers, std::chrono::milliseconds timeout,
            std::shared_ptr<ProcessLink> link = nullptr, std::vector<int> counts = {})
      : n_(workers),
        timeout_(timeout),
        buffers_(static_cast<std::size_t>(workers)),
        link_(std::move(link)),
        counts_(std::move(counts)) {
    if (!link_) return;
    for (int p = 0; p < static_cast<int>(counts_.size()); ++p) {
      if (p < link_->process()) first_rank_ += counts_[static_cast<std::size_t>(p)];
      world_ += counts_[static_cast<std::size_t>(p)];
    }
    link_->set_layout(counts_);
  }

  int local_count() const override { return n_; }
  int world() const override { return link_ ? world_ : n_; }
  int rank(int local) const override { return first_rank_ + local; }
  int processes() const override { return link_ ? link_->processes() : 1; }

  std::vector<std::string> each_process(const std::string& mine) override {
    return link_ ? link_->all_gather(mine) : std::vector<std::string>{mine};
  }

  void all_reduce(int local, void* data, std::size_t count, DType dtype) override {
    if (dtype != DType::f32 && dtype != DType::i32)
      throw CollectiveError(
          "an all-reduce of " + std::string(dtype_name(dtype)) + " (only f32 and i32 are summed)",
          false);
    rendezvous(local, {data, count}, "all-reduce", [&](std::vector<Buffer>& all) {
      for (const auto& b : all)
        if (b.count != count) throw CollectiveError("all-reduce of different sizes", false);
      if (link_) {
        std::vector<void*> locals;
        for (const auto& b : all) locals.push_back(b.data);
        link_->all_reduce(locals, count, dtype, stopped());
      } else if (dtype == DType::f32) {
        sum_in_rank_order<float>(all, count);
      } else {
        sum_in_rank_order<std::int32_t>(all, count);
      }
    });
  }

  // `root` is a rank of the world.
  void broadcast(int local, void* data, std::size_t bytes, int root) override {
    rendezvous(local, {data, bytes}, "broadcast", [&](std::vector<Buffer>& all) {
      const int root_local = root - first_rank_;
      const bool here = root_local >= 0 && root_local < n_;
      void* from = all.at(static_cast<std::size_t>(here ? root_local : 0)).data;
      if (link_) link_->broadcast(from, bytes, process_of(root), stopped());
      for (auto& b : all)
        if (b.data != from) std::memcpy(b.data, from, bytes);
    });
  }

  void barrier(int local) override {
    rendezvous(local, {nullptr, 0}, "barrier", [&](auto&) {
      if (link_) link_->barrier(stopped());
    });
  }

  void abort(const std::string& why) override {
    std::lock_guard lock(mutex_);
    if (!aborted_) why_ = why;
    aborted_ = true;
    woken_.notify_all();
  }

  bool reset() override {
    std::lock_guard lock(mutex_);
    if (link_ && link_->broken()) return false;
    aborted_ = false;
    arrived_ = 0;
    ++generation_;
    return true;
  }

 private:
  struct Buffer {
    void* data = nullptr;
    std::size_t count = 0;
  };

  std::function<bool()> stopped() {
    return [this] { return aborted_.load(); };
  }

  int process_of(int rank) const {
    int first = 0;
    for (int p = 0; p < static_cast<int>(counts_.size()); ++p) {
      first += counts_[static_cast<std::size_t>(p)];
      if (rank < first) return p;
    }
    return 0;
  }

  template <typename T>
  static void sum_in_rank_order(std::vector<Buffer>& all, std::size_t count) {
    auto* first = static_cast<T*>(all[0].data);
    for (std::size_t r = 1; r < all.size(); ++r) {
      const auto* next = static_cast<const T*>(all[r].data);
      for (std::size_t i = 0; i < count; ++i) first[i] += next[i];
    }
    for (std::size_t r = 1; r < all.size(); ++r) std::memcpy(all[r].data, first, count * sizeof(T));
  }

  void rendezvous(int local, Buffer mine, const char* what,
                  const std::function<void(std::vector<Buffer>&)>& work) {
    std::unique_lock lock(mutex_);
    if (aborted_) throw CollectiveError("the " + std::string(what) + " was aborted: " + why_, true);
    buffers_.at(static_cast<std::size_t>(local)) = mine;
    const std::uint64_t generation = generation_;
    if (++arrived_ == n_) {
      arrived_ = 0;
      working_ = true;
      if (link_) lock.unlock();  // the exchange may wait long: an abort must get in
      std::exception_ptr error;
      try {
        work(buffers_);
      } catch (...) {
        error = std::current_exception();
      }
      if (link_) lock.lock();
      working_ = false;
      if (error) {  // the others wake to the abort
        aborted_ = true;
        try {
          std::rethrow_exception(error);
        } catch (const std::exception& e) {
          why_ = e.what();
        }
        woken_.notify_all();
        std::rethrow_exception(error);
      }
      ++generation_;
      woken_.notify_all();
      return;
    }
    // The others are usually a few microseconds behind: spin a while before
    // sleeping, since waking a sleeping thread costs more than that. A zero
    // timeout fails at once, before the lock is let go (so surely).
    if (timeout_.count() > 0) {
      lock.unlock();
      spin_until([&] { return generation_.load() != generation || aborted_.load(); });
      lock.lock();
    }
    const auto over = [&] { return generation_ != generation || aborted_; };
    bool done =
        timeout_.count() > 0 && woken_.wait_for(lock, timeout_, [&] { return over() || working_; });
    // The exchange with the other processes has a timeout of its own.
    if (done && !over()) woken_.wait(lock, over);
    if (generation_ != generation) return;
    if (!done) {
      aborted_ = true;
      why_ = "worker " + std::to_string(local) + " waited " + std::to_string(timeout_.count()) +
             " ms for the others to join the " + what;
      woken_.notify_all();
      throw CollectiveError(why_, false);
    }
    throw CollectiveError("the " + std::string(what) + " was aborted: " + why_, true);
  }

  const int n_;
  const std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable woken_;
  std::vector<Buffer> buffers_;
  int arrived_ = 0;
  bool working_ = false;  // the last to arrive is doing the work
  // Changed under the mutex; read without it while spinning.
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<bool> aborted_{false};
  std::string why_;
  std::shared_ptr<ProcessLink> link_;
  std::vector<int> counts_;
  int first_rank_ = 0, world_ = 0;
};

}  // namespace

std::unique_ptr<Collectives> in_process_collectives(int workers,
                                                    std::chrono::milliseconds timeout) {
  return std::make_unique<InProcess>(workers, timeout);
}

std::unique_ptr<Collectives> linked_collectives(int workers, std::chrono::milliseconds timeout,
                                                std::shared_ptr<ProcessLink> link,
                                                std::vector<int> counts) {
  return std::make_unique<InProcess>(workers, timeout, std::move(link), std::move(counts));
}

}  // namespace ss::runtime
