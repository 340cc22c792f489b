// Just enough of CUDA C for the host's compiler to run a kernel written
// for NVRTC, to check its values on a machine without a GPU: a block's
// threads are std::threads meeting at a std::barrier for __syncthreads,
// blocks run one after another (so a kernel's __shared__ arrays, static
// here, are its block's alone), threadIdx and blockIdx are each thread's.
// No warp functions: a kernel that needs them can't run here.
#pragma once

#include <barrier>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};

inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline std::barrier<>* ss_host_block = nullptr;

inline void __syncthreads() {
  ss_host_block->arrive_and_wait();
}

inline float __int_as_float(int x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

inline unsigned __float_as_uint(float f) {
  unsigned u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float __uint_as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

namespace ss::test {

// Runs `kernel` over a grid of (gx, gy) blocks of `threads` threads.
inline void launch_on_host(unsigned gx, unsigned gy, unsigned threads,
                           const std::function<void()>& kernel) {
  gridDim = {gx, gy, 1};
  blockDim = {threads, 1, 1};
  for (unsigned by = 0; by < gy; ++by)
    for (unsigned bx = 0; bx < gx; ++bx) {
      std::barrier<> block(static_cast<std::ptrdiff_t>(threads));
      ss_host_block = &block;
      std::vector<std::thread> team;
      for (unsigned t = 0; t < threads; ++t)
        team.emplace_back([&, t] {
          threadIdx = {t, 0, 0};
          blockIdx = {bx, by, 0};
          kernel();
        });
      for (auto& thread : team) thread.join();
    }
}

}  // namespace ss::test
