// A block of 64-byte aligned memory that grows to the largest size asked of
// it and is kept: a thread's scratch between calls (the GEMM's packing
// buffers, oneDNN's scratchpads), so a steady loop allocates nothing.
#pragma once

#include <cstdlib>
#include <memory>
#include <new>

#include "runtime/core/out_of_memory.hpp"

namespace ss::runtime {

class AlignedScratch {
 public:
  // At least `bytes`; throws OutOfMemory where it can't grow.
  void* get(std::size_t bytes) {
    if (!memory_ || bytes > bytes_) {
      const std::size_t rounded = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
      memory_.reset();  // the old block first: growing needs only the new size
      bytes_ = 0;       // (and stays consistent if the allocation throws)
      memory_.reset(allocate_aligned(64, rounded));
      bytes_ = rounded;
    }
    return memory_.get();
  }

  struct Free {
    void operator()(void* p) const { std::free(p); }
  };

 private:
  std::unique_ptr<void, Free> memory_;
  std::size_t bytes_ = 0;
};

}  // namespace ss::runtime
