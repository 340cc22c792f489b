// Memory the machine can't give: every large allocation of the runtime
// (tensors' buffers, scratch, packed GEMM panels) goes through
// allocate_aligned, whose failure says how much was asked for. A call or a
// load reports it as E1611, never as a bug (E0001).
#pragma once

#include <cstddef>
#include <new>

namespace ss::runtime {

struct OutOfMemory : std::bad_alloc {
  explicit OutOfMemory(std::size_t bytes);
  const char* what() const noexcept override { return message_; }
  std::size_t bytes;

 private:
  char message_[200];  // no allocation while memory is short
};

// `bytes` (rounded up to a multiple of `alignment`) of memory aligned to
// `alignment`, to be released with std::free; throws OutOfMemory where the
// system refuses, or without asking when it is more than the machine's
// physical memory (a size that can only fail, or crash a sanitizer).
void* allocate_aligned(std::size_t alignment, std::size_t bytes);

// The machine's physical memory in bytes (0 when unknown).
std::size_t physical_memory();

}  // namespace ss::runtime
