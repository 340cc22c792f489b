#include "runtime/core/out_of_memory.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace ss::runtime {

OutOfMemory::OutOfMemory(std::size_t b) : bytes(b) {
  const std::size_t machine = physical_memory();
  if (b == static_cast<std::size_t>(-1))
    std::snprintf(message_, sizeof message_,
                  "out of memory: a tensor of more bytes than a 64-bit count holds was asked for");
  else if (machine > 0 && b > machine)
    std::snprintf(message_, sizeof message_,
                  "out of memory: %zu bytes were asked for, more than this machine's %zu", b,
                  machine);
  else
    std::snprintf(message_, sizeof message_,
                  "out of memory: %zu bytes were asked for, and the system refused them", b);
}

std::int64_t checked_product(std::int64_t a, std::int64_t b) {
  std::int64_t n = 0;
  if (__builtin_mul_overflow(a, b, &n)) throw OutOfMemory(static_cast<std::size_t>(-1));
  return n;
}

std::size_t checked_bytes(std::int64_t elements, std::size_t element_size) {
  std::size_t n = 0;
  if (elements < 0 || __builtin_mul_overflow(static_cast<std::size_t>(elements), element_size, &n))
    throw OutOfMemory(static_cast<std::size_t>(-1));
  return n;
}

void check_fits_machine(std::size_t asked, std::size_t needed) {
  static const std::size_t machine = physical_memory();  // once: a syscall, on the alloc path
  if (machine > 0 && needed > machine) throw OutOfMemory(asked);
}

std::size_t physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : 0;
}

void* allocate_aligned(std::size_t alignment, std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(-1) - alignment) throw OutOfMemory(bytes);
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  check_fits_machine(bytes, rounded);
  void* data = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  if (!data) throw OutOfMemory(bytes);
  return data;
}

}  // namespace ss::runtime
