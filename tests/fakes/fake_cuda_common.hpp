// What the CUDA driver's stand-in (fake_cuda.cpp) and NCCL's (fake_nccl.cpp)
// share, one copy in the library: result codes, contexts, streams and
// their work, device memory's allocations, the launch log, and the
// switches the tests flip.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ss_fake {

using CUresult = int;
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2, kInvalidDevice = 101,
                   kNotReady = 600, kLaunchFailed = 719;
using ncclResult_t = int;
constexpr ncclResult_t ncclSuccess = 0, ncclInvalidArgument = 4, ncclInProgress = 7;

struct Context {
  int device;
};
inline Context g_contexts[8] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
inline thread_local int t_device = -1;  // the current context's device

inline int device_count() {
  const char* env = std::getenv("SS_FAKE_CUDA_DEVICES");
  return env ? std::atoi(env) : 2;
}

// A captured graph: its work items in stream order, run whole by a launch.
struct Graph {
  std::vector<std::function<bool()>> items;
  int kernels = 0;
};

// A stream: work items, each done when it returns true. While capturing,
// what it is given goes into `capture` instead.
struct Stream {
  int device = 0;
  std::mutex mutex;
  std::deque<std::function<bool()>> work;
  Graph* capture = nullptr;
  // Queues (or captures) an item; under the stream's mutex.
  void add(std::function<bool()> item) {
    if (capture)
      capture->items.push_back(std::move(item));
    else
      work.push_back(std::move(item));
  }
};

// Device memory as allocated, so that the launch log names each pointer
// by its allocation (a serial number) and offset.
struct Allocation {
  std::size_t bytes;
  long long serial;
};
inline std::mutex g_memory_mutex;
inline std::map<std::uint64_t, Allocation> g_allocations;
inline long long g_serial = 0;

// With ss_fake_log(1), every kernel launch and host-to-device copy as it
// runs (eager or replayed from a graph), one line each.
inline std::mutex g_log_mutex;
inline std::atomic<bool> g_logging{false};
inline std::vector<std::string> g_log;

inline void log_line(std::string line) {
  if (!g_logging) return;
  std::lock_guard lock(g_log_mutex);
  g_log.push_back(std::move(line));
}

// A word as the log writes it: @serial+offset for a device address, else hex.
inline std::string word(std::uint64_t w) {
  std::lock_guard lock(g_memory_mutex);
  auto it = g_allocations.upper_bound(w);
  if (it != g_allocations.begin()) {
    --it;
    if (w >= it->first && w < it->first + it->second.bytes)
      return "@" + std::to_string(it->second.serial) + "+" + std::to_string(w - it->first);
  }
  char text[32];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(w));
  return text;
}

inline std::string hash_of(const void* data, std::size_t bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < bytes; ++i) {
    h ^= static_cast<const unsigned char*>(data)[i];
    h *= 1099511628211ull;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

struct Function {
  std::string name;
};
struct Module {
  std::vector<std::unique_ptr<Function>> functions;
};

// The tests' switches (the ss_fake_* controls): a rank whose collectives
// never arrive, a device whose stream fails, kernels launched, and whether
// a capturing stream refuses launches.
inline std::atomic<int> g_hang_rank{-1}, g_lost_device{-1};
inline std::atomic<int> g_launches{0};
inline std::atomic<bool> g_refuse_in_capture{false};  // ss_fake_refuse_in_capture

struct Comm;

}  // namespace ss_fake
