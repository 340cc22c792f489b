// Where the process's loaded objects (the executable, shared libraries)
// lie in memory, so an allocator hook can tell whose frames a stack holds.
#pragma once

#include <link.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ss::test {

struct AddressRange {
  std::uintptr_t lo = 0, hi = 0;
  bool holds(const void* p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return a >= lo && a < hi;
  }
};

// The span of each loaded object's segments whose path `wanted` accepts
// (the executable's path is "").
inline std::vector<AddressRange> loaded_ranges(
    const std::function<bool(const std::string&)>& wanted) {
  struct Search {
    const std::function<bool(const std::string&)>* wanted;
    std::vector<AddressRange> found;
  } search{&wanted, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto& s = *static_cast<Search*>(data);
        if (!(*s.wanted)(info->dlpi_name ? info->dlpi_name : "")) return 0;
        AddressRange r{~std::uintptr_t{0}, 0};
        for (int k = 0; k < info->dlpi_phnum; ++k) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[k];
          if (ph.p_type != PT_LOAD) continue;
          const std::uintptr_t at = info->dlpi_addr + ph.p_vaddr;
          r.lo = std::min(r.lo, at);
          r.hi = std::max(r.hi, at + ph.p_memsz);
        }
        s.found.push_back(r);
        return 0;
      },
      &search);
  return search.found;
}

}  // namespace ss::test
