#include "runtime/core/buffer_pool.hpp"

#include "runtime/core/out_of_memory.hpp"

#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace ss::runtime {
namespace {

struct Pool {
  std::mutex mutex;
  std::unordered_map<std::size_t, std::vector<void*>> idle;  // by size in bytes
  std::size_t idle_bytes = 0;
  std::int64_t fresh = 0, reused = 0;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: tensors may die after main
  return *p;
}

}  // namespace

void* BufferPool::take(std::size_t bytes, std::size_t alignment) {
  Pool& p = pool();
  {
    std::lock_guard lock(p.mutex);
    if (auto it = p.idle.find(bytes); it != p.idle.end() && !it->second.empty()) {
      void* data = it->second.back();
      it->second.pop_back();
      p.idle_bytes -= bytes;
      ++p.reused;
      return data;
    }
    ++p.fresh;
  }
  return allocate_aligned(alignment, bytes);
}

void BufferPool::give(void* data, std::size_t bytes) {
  Pool& p = pool();
  {
    std::lock_guard lock(p.mutex);
    if (p.idle_bytes + bytes <= kCapBytes) {
      p.idle[bytes].push_back(data);
      p.idle_bytes += bytes;
      return;
    }
  }
  std::free(data);
}

BufferPoolStats BufferPool::stats() {
  Pool& p = pool();
  std::lock_guard lock(p.mutex);
  return {p.fresh, p.reused, p.idle_bytes};
}

void BufferPool::trim() {
  Pool& p = pool();
  std::unordered_map<std::size_t, std::vector<void*>> idle;
  {
    std::lock_guard lock(p.mutex);
    idle.swap(p.idle);
    p.idle_bytes = 0;
  }
  for (auto& [bytes, list] : idle)
    for (void* data : list) std::free(data);
}

}  // namespace ss::runtime
