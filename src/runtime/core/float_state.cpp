#include "runtime/core/float_state.hpp"

#include <xmmintrin.h>

namespace ss::runtime {
namespace {

constexpr unsigned kFlags = 0x3F;  // the sticky exception flags

}  // namespace

unsigned float_state() {
  return _mm_getcsr() & ~kFlags;
}

FloatStateScope::FloatStateScope(unsigned state) : saved_(_mm_getcsr()) {
  changed_ = (saved_ & ~kFlags) != (state & ~kFlags);
  if (changed_) _mm_setcsr(state & ~kFlags);
}

FloatStateScope::~FloatStateScope() {
  if (changed_) _mm_setcsr(saved_);
}

}  // namespace ss::runtime
