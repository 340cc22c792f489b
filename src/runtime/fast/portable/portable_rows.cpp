#include "runtime/fast/portable/portable_rows.hpp"

#include "runtime/core/cpu_isa.hpp"
#include "support/portable_math.hpp"

namespace ss::runtime::fast::portable {
namespace {

const Path& chosen() {
  static const Path p = [] {
    switch (kernel_isa()) {
      case Isa::avx512:
        return path_avx512();
      case Isa::avx2:
        return path_avx2();
      case Isa::scalar:
        break;
    }
    return path_scalar();
  }();
  return p;
}

}  // namespace

void map(Function f, const float* in, float* out, std::int64_t n) {
  chosen().map(f, in, out, n);
}

float exp_sum(const float* in, float shift, float* out, std::int64_t n) {
  return chosen().exp_sum(in, shift, out, n);
}

// (Built without FMA flags: fmaf's library call, correctly rounded too.)
float exp(float x) {
  return pmath::exp(x);
}

float log(float x) {
  return pmath::log(x);
}

}  // namespace ss::runtime::fast::portable
