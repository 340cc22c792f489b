#include "kernels/nccl_collectives.hpp"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

namespace ss::nccl {
namespace {

using Clock = std::chrono::steady_clock;
using runtime::CollectiveError;

struct Worker {
  int index = 0;  // the CUDA device's index
  cuda::CUcontext context = nullptr;
  cuda::CUstream stream = nullptr;
  cuda::CUdeviceptr buffer = 0;
  std::size_t capacity = 0;
  ncclComm_t comm = nullptr;
  int rank = 0;
  bool dead = false;  // aborted: NCCL has freed the communicator
};

class NcclCollectives final : public runtime::Collectives {
 public:
  explicit NcclCollectives(Setup setup)
      : s_(std::move(setup)), calls_(s_.driver->calls()), owned_(s_.from_host.empty()) {}

  // Contexts, streams and communicators; false, with *why, when they can't
  // be had.
  bool start(std::string* why) {
    for (std::size_t i = 0; i < s_.devices.size(); ++i) {
      Worker w;
      w.index = s_.devices[i];
      const cuda::CUdevice device = s_.driver->handle(w.index);
      if (!cuda_ok(calls_.cuDevicePrimaryCtxRetain(&w.context, device), "start", w, why))
        return false;
      w_.push_back(w);  // from here on the destructor releases it
      Worker& kept = w_.back();
      calls_.cuCtxSetCurrent(kept.context);
      if (!cuda_ok(calls_.cuStreamCreate(&kept.stream, cuda::CU_STREAM_NON_BLOCKING),
                   "make a stream on", kept, why))
        return false;
    }
    return owned_ ? make_communicators(why) : adopt(why);
  }

  ~NcclCollectives() override {
    for (auto& w : w_) {
      calls_.cuCtxSetCurrent(w.context);
      if (owned_ && w.comm && !w.dead) s_.nccl->ncclCommDestroy(w.comm);
      if (w.buffer) calls_.cuMemFree(w.buffer);
      if (w.stream) calls_.cuStreamDestroy(w.stream);
      calls_.cuDevicePrimaryCtxRelease(s_.driver->handle(w.index));
    }
  }

  int local_count() const override { return static_cast<int>(w_.size()); }
  int world() const override { return world_; }
  int rank(int local) const override { return w_.at(static_cast<std::size_t>(local)).rank; }

  void all_reduce(int local, void* data, std::size_t count, runtime::DType dtype) override {
    if (dtype != runtime::DType::f32 && dtype != runtime::DType::i32)
      throw CollectiveError(
          std::string("NCCL all-reduce of ") + runtime::dtype_name(dtype) + " isn't supported here",
          false);
    Worker& w = enter(local);
    if (count == 0) return;
    const std::size_t bytes = count * 4;
    stage_in(w, data, bytes);
    launched(w,
             s_.nccl->ncclAllReduce(
                 reinterpret_cast<void*>(w.buffer), reinterpret_cast<void*>(w.buffer), count,
                 dtype == runtime::DType::f32 ? ncclFloat32 : ncclInt32, ncclSum, w.comm, w.stream),
             "all-reduce");
    stage_out(w, data, bytes);
  }

  void broadcast(int local, void* data, std::size_t bytes, int root) override {
    Worker& w = enter(local);
    if (bytes == 0) return;
    stage_in(w, data, bytes);
    launched(
        w,
        s_.nccl->ncclBroadcast(reinterpret_cast<void*>(w.buffer), reinterpret_cast<void*>(w.buffer),
                               bytes, ncclUint8, root, w.comm, w.stream),
        "broadcast");
    stage_out(w, data, bytes);
  }

  void barrier(int local) override {
    std::int32_t one = 1;
    all_reduce(local, &one, 1, runtime::DType::i32);
  }

  void abort(const std::string& why) override {
    {
      std::lock_guard lock(why_mutex_);
      if (why_.empty()) why_ = why;
    }
    aborted_ = true;
  }

  bool reset() override {
    if (!aborted_) return true;
    bool any_dead = false;
    for (const auto& w : w_) any_dead = any_dead || w.dead;
    if (any_dead) {
      // The host's communicators are gone; ones spanning processes would
      // need every process to make them again.
      if (!owned_ || s_.world > 0) return false;
      for (auto& w : w_) {
        if (w.comm && !w.dead) s_.nccl->ncclCommAbort(w.comm);
        w.comm = nullptr;
        w.dead = false;
      }
      std::string why;
      if (!make_communicators(&why)) return false;
    }
    std::lock_guard lock(why_mutex_);
    why_.clear();
    aborted_ = false;
    return true;
  }

 private:
  static std::string where(const Worker& w) { return "cuda:" + std::to_string(w.index); }

  bool cuda_ok(cuda::CUresult r, const char* what, const Worker& w, std::string* why) const {
    if (r == cuda::CUDA_SUCCESS) return true;
    *why = std::string("can't ") + what + " " + where(w) + ": " + s_.driver->describe(r);
    return false;
  }

  // The host's communicators: one per device, on it, distinct ranks of one world.
  bool adopt(std::string* why) {
    if (s_.from_host.size() != w_.size()) {
      *why = "the host gave " + std::to_string(s_.from_host.size()) + " NCCL communicators for " +
             std::to_string(w_.size()) + " devices";
      return false;
    }
    std::set<int> ranks;
    for (std::size_t i = 0; i < w_.size(); ++i) {
      Worker& w = w_[i];
      w.comm = s_.from_host[i];
      int count = 0, device = -1;
      if (!w.comm || s_.nccl->ncclCommCount(w.comm, &count) != ncclSuccess ||
          s_.nccl->ncclCommUserRank(w.comm, &w.rank) != ncclSuccess ||
          s_.nccl->ncclCommCuDevice(w.comm, &device) != ncclSuccess) {
        *why = "the host's NCCL communicator for " + where(w) + " can't be used";
        return false;
      }
      if (device != w.index) {
        *why = "the host's NCCL communicator for " + where(w) +
               " is on cuda:" + std::to_string(device);
        return false;
      }
      if (i > 0 && count != world_) {
        *why = "the host's NCCL communicators span worlds of " + std::to_string(world_) + " and " +
               std::to_string(count) + " ranks";
        return false;
      }
      world_ = count;
      if (!ranks.insert(w.rank).second) {
        *why = "two of the host's NCCL communicators have rank " + std::to_string(w.rank);
        return false;
      }
    }
    return true;
  }

  // One non-blocking communicator per local device, ranks in `devices`
  // order (after the processes before this one's, across processes).
  bool make_communicators(std::string* why) {
    ncclUniqueId id = s_.id;
    if (s_.world == 0)
      if (const auto r = s_.nccl->ncclGetUniqueId(&id); r != ncclSuccess) {
        *why = "NCCL can't make a communicator: " + s_.nccl->describe(r);
        return false;
      }
    ncclConfigPrefix config;
    config.blocking = 0;
    const int local = static_cast<int>(w_.size());
    const int n = s_.world > 0 ? s_.world : local;
    s_.nccl->ncclGroupStart();
    ncclResult_t first_error = ncclSuccess;
    for (int i = 0; i < local; ++i) {
      Worker& w = w_[static_cast<std::size_t>(i)];
      calls_.cuCtxSetCurrent(w.context);
      w.rank = s_.first_rank + i;
      const auto r = s_.nccl->ncclCommInitRankConfig(&w.comm, n, id, w.rank, &config);
      if (r != ncclSuccess && r != ncclInProgress && first_error == ncclSuccess) first_error = r;
    }
    const auto end = s_.nccl->ncclGroupEnd();
    if (end != ncclSuccess && end != ncclInProgress && first_error == ncclSuccess)
      first_error = end;
    const auto deadline = Clock::now() + s_.timeout;
    for (auto& w : w_) {
      ncclResult_t state = ncclInProgress;
      while (first_error == ncclSuccess && w.comm &&
             s_.nccl->ncclCommGetAsyncError(w.comm, &state) == ncclSuccess &&
             state == ncclInProgress) {
        if (Clock::now() > deadline) {
          *why = "NCCL took more than " + std::to_string(s_.timeout.count()) +
                 " ms to make the communicators";
          abort_all();
          return false;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
      if (first_error == ncclSuccess && state != ncclSuccess) first_error = state;
    }
    if (first_error != ncclSuccess) {
      *why = "NCCL can't make communicators for the devices: " + s_.nccl->describe(first_error);
      abort_all();
      return false;
    }
    world_ = n;
    return true;
  }

  void abort_all() {
    for (auto& w : w_) {
      if (w.comm && !w.dead) s_.nccl->ncclCommAbort(w.comm);
      w.comm = nullptr;
    }
  }

  // The worker's state, its context made current; throws once aborted.
  Worker& enter(int local) {
    Worker& w = w_.at(static_cast<std::size_t>(local));
    if (aborted_) throw CollectiveError(reason(), true);
    if (w.dead || !w.comm)
      throw CollectiveError("the NCCL communicator of " + where(w) + " was aborted", false);
    calls_.cuCtxSetCurrent(w.context);
    return w;
  }

  void stage_in(Worker& w, const void* data, std::size_t bytes) {
    if (w.capacity < bytes) {
      if (w.buffer) calls_.cuMemFree(w.buffer);
      w.buffer = 0;
      w.capacity = 0;
      if (const auto r = calls_.cuMemAlloc(&w.buffer, bytes); r != cuda::CUDA_SUCCESS)
        fail(w, "can't allocate " + std::to_string(bytes) + " bytes on " + where(w) +
                    " for a collective: " + s_.driver->describe(r));
      w.capacity = bytes;
    }
    if (const auto r = calls_.cuMemcpyHtoDAsync(w.buffer, data, bytes, w.stream);
        r != cuda::CUDA_SUCCESS)
      fail(w, "can't copy a collective's values to " + where(w) + ": " + s_.driver->describe(r));
  }

  // After the collective: wait for it, then copy the result back.
  void stage_out(Worker& w, void* data, std::size_t bytes) {
    wait(w, "collective");
    if (const auto r = calls_.cuMemcpyDtoHAsync(data, w.buffer, bytes, w.stream);
        r != cuda::CUDA_SUCCESS)
      fail(w, "can't copy a collective's result from " + where(w) + ": " + s_.driver->describe(r));
    wait(w, "copy from the device");
  }

  // A non-blocking communicator may still be enqueuing when the call returns.
  void launched(Worker& w, ncclResult_t r, const char* what) {
    const auto start = Clock::now();
    while (r == ncclInProgress) {
      watch(w, what, start);
      if (s_.nccl->ncclCommGetAsyncError(w.comm, &r) != ncclSuccess) break;
    }
    if (r != ncclSuccess)
      fail(w,
           std::string("NCCL's ") + what + " on " + where(w) + " failed: " + s_.nccl->describe(r));
  }

  // The watchdog: waits for the stream, never past the timeout, and gives up
  // at once when another worker aborted or NCCL reports an error.
  void wait(Worker& w, const char* what) {
    const auto start = Clock::now();
    for (int spins = 0;; ++spins) {
      const auto q = calls_.cuStreamQuery(w.stream);
      if (q == cuda::CUDA_SUCCESS) return;
      if (q != cuda::CUDA_ERROR_NOT_READY)
        fail(w,
             std::string("the ") + what + " on " + where(w) + " failed: " + s_.driver->describe(q));
      ncclResult_t state = ncclSuccess;
      if (s_.nccl->ncclCommGetAsyncError(w.comm, &state) == ncclSuccess && state != ncclSuccess &&
          state != ncclInProgress)
        fail(w, std::string("NCCL's ") + what + " on " + where(w) +
                    " failed: " + s_.nccl->describe(state));
      watch(w, what, start);
      if (spins < 1000)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  void watch(Worker& w, const char* what, Clock::time_point start) {
    if (aborted_) {
      abort_own(w);
      throw CollectiveError(reason(), true);
    }
    if (Clock::now() - start > s_.timeout)
      fail(w, std::string("a ") + what + " on " + where(w) + " (rank " + std::to_string(w.rank) +
                  ") waited more than " + std::to_string(s_.timeout.count()) +
                  " ms for the other ranks");
  }

  [[noreturn]] void fail(Worker& w, const std::string& why) {
    abort(why);
    abort_own(w);
    throw CollectiveError(why, false);
  }

  // Ends NCCL's kernels on this worker's communicator, which NCCL then frees.
  void abort_own(Worker& w) {
    if (!w.comm || w.dead) return;
    s_.nccl->ncclCommAbort(w.comm);
    w.dead = true;
  }

  std::string reason() {
    std::lock_guard lock(why_mutex_);
    return "the collective was aborted: " + why_;
  }

  Setup s_;
  const cuda::DeviceCalls& calls_;
  bool owned_;
  std::vector<Worker> w_;
  int world_ = 0;
  std::atomic<bool> aborted_{false};
  std::mutex why_mutex_;
  std::string why_;
};

}  // namespace

std::unique_ptr<runtime::Collectives> make_collectives(Setup setup, std::string* why) {
  auto c = std::make_unique<NcclCollectives>(std::move(setup));
  if (!c->start(why)) return nullptr;
  return c;
}

}  // namespace ss::nccl
