// The SSE floating-point state (MXCSR: rounding, flush-to-zero,
// denormals-are-zero) the CPU computes float32 and double in. A host may
// set flush-to-zero for speed, and a thread inherits its creator's state;
// Numerics::portable computes under one state on every thread it uses.
#pragma once

namespace ss::runtime {

// Round to nearest, no flush-to-zero, no denormals-are-zero, every
// exception masked: the x86-64 ABI's initial state.
inline constexpr unsigned kPortableFloatState = 0x1F80;

// The control bits of this thread's state (its sticky exception flags left out).
unsigned float_state();

// Sets this thread's control bits to `state` for the scope, where they
// differ, and puts the old state back (flags included) after.
class FloatStateScope {
 public:
  explicit FloatStateScope(unsigned state);
  ~FloatStateScope();
  FloatStateScope(const FloatStateScope&) = delete;
  FloatStateScope& operator=(const FloatStateScope&) = delete;

 private:
  unsigned saved_;
  bool changed_;
};

}  // namespace ss::runtime
