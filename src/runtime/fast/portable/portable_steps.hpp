// A fused kernel's steps (jit/jit_api.h, as runtime/fast/jit_steps makes
// them under Numerics::portable) run an element at a time in C++, with the
// JIT's types and operations: a float step in float, a double one in
// double, each function the portable one the JIT calls. The same bits as
// the compiled kernel, for an elementwise node the portable numerics run
// without the JIT (no JIT module, or one that couldn't compile the graph):
// its formula isn't left to the reference's double and libm.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ops.hpp"
#include "jit/jit_api.h"

namespace ss::runtime::fast::portable {

class Steps {
 public:
  // nullopt for steps the JIT wouldn't build (an out-of-range index,
  // arithmetic on two bools, a result that isn't a float).
  static std::optional<Steps> make(std::vector<SsJitStep> steps);

  // The result for one element: x[k] is input k's float (a bool input's
  // 0 or 1 where it loads as a bool).
  float operator()(const float* x) const;

 private:
  enum class Type : std::uint8_t { f32, f64, boolean };
  struct Value {
    float f;
    double d;
    bool b;
  };
  std::vector<SsJitStep> steps_;
  std::vector<Type> types_;
};

// A portable elementwise node's steps, made once: a function of one float
// input or of two, as jit_steps spells it under portable; null where the
// JIT couldn't build them either (arithmetic on bools).
const Steps* unary_steps(ir::Unary op);
const Steps* binary_steps(ir::Binary op);

}  // namespace ss::runtime::fast::portable
