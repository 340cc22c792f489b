#include "runtime/core/cpu_isa.hpp"

#include <cstdlib>
#include <string_view>

namespace ss::runtime {

Isa cpu_isa() {
  static const Isa best = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Isa::avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
    return Isa::scalar;
  }();
  return best;
}

namespace {

// SHAPESCRIPT_ISA's value, or "".
std::string_view requested() {
  const char* variable = std::getenv("SHAPESCRIPT_ISA");
  return variable ? variable : "";
}

}  // namespace

Isa kernel_isa() {
  static const Isa chosen = [] {
    const std::string_view asked = requested();
    Isa want = cpu_isa();
    if (asked == "avx512") want = Isa::avx512;
    if (asked == "avx2") want = Isa::avx2;
    if (asked == "scalar" || asked == "baseline") want = Isa::scalar;
    return want < cpu_isa() ? want : cpu_isa();
  }();
  return chosen;
}

bool cpu_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("fma");
}

bool kernel_fma() {
  static const bool fma = cpu_fma() && requested() != "baseline";
  return fma;
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::avx512:
      return "avx512";
    case Isa::avx2:
      return "avx2";
    case Isa::scalar:
      return "scalar";
  }
  return "scalar";
}

}  // namespace ss::runtime
