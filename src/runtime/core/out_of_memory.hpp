// Memory the machine can't give: every large allocation of the runtime
// (tensors' buffers, scratch, packed GEMM panels) goes through
// allocate_aligned, whose failure says how much was asked for. A call or a
// load reports it as E1611, never as a bug (E0001).
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

namespace ss::runtime {

struct OutOfMemory : std::bad_alloc {
  // `bytes` is SIZE_MAX for a count no 64-bit integer holds (a product of
  // sizes that overflowed).
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

// Products of sizes, checked: a tensor's element count, its bytes. Sizes
// are never negative here; a product past what an int64 (or, for bytes, a
// size_t) holds is memory no machine has: OutOfMemory(SIZE_MAX), so that
// every path reports it as E1611 instead of wrapping around.
std::int64_t checked_product(std::int64_t a, std::int64_t b);
std::size_t checked_bytes(std::int64_t elements, std::size_t element_size);

// OutOfMemory(asked) when `needed` bytes (what was asked, rounded up to
// an allocation's unit) are more than the machine's physical memory: a
// size that can only fail (or crash a sanitizer), refused without asking.
void check_fits_machine(std::size_t asked, std::size_t needed);

// The machine's physical memory in bytes (0 when unknown).
std::size_t physical_memory();

}  // namespace ss::runtime
