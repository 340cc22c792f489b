// Tensor memory kept for reuse. A buffer a tensor drops goes back to a pool
// by its size, and the next tensor of that size takes it: a training step
// makes the same sizes every time, so after the first step its tensors
// reuse the last step's memory (warm in the cache, no page faults, no
// calls into malloc). Process-wide and thread-safe; at most kCapBytes are
// kept idle, the rest is freed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ss::runtime {

struct BufferPoolStats {
  std::int64_t fresh = 0;   // buffers that came from the system allocator
  std::int64_t reused = 0;  // buffers that came from the pool
  std::size_t idle_bytes = 0;
};

class BufferPool {
 public:
  static constexpr std::size_t kCapBytes = std::size_t{256} << 20;
  // Memory of exactly `bytes` (a multiple of `alignment`): from the pool
  // when it holds some, else new. Never null (std::bad_alloc instead).
  static void* take(std::size_t bytes, std::size_t alignment);
  // Gives memory from take() back, or frees it when the pool is full.
  static void give(void* data, std::size_t bytes);
  static BufferPoolStats stats();
  // Frees every idle buffer.
  static void trim();
};

}  // namespace ss::runtime
