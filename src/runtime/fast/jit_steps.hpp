// A fused kernel's steps as the JIT module takes them (jit/jit_api.h): each
// function of one value but neg and not, and each of two, spelled as its
// formula's steps (types/unary.def, types/binary.def) in the reference's
// order. Functions of one value run in float (docs/numerics.md bounds the
// difference); of two, in float where that gives the reference's bits
// (kExact), else widened to double and rounded back, the reference's bits.
#pragma once

#include <vector>

#include "ir/fusion.hpp"
#include "jit/jit_api.h"

namespace ss::runtime {

// `portable` (Numerics::portable): every function but sqrt, fabs, floor,
// fmod and copysign (exact, or one correctly rounded operation) as the
// portable ones (SS_JIT_PORTABLE_EXP ... POW), the same bits on every CPU.
std::vector<SsJitStep> jit_steps(const std::vector<ir::FusedStep>& steps, bool portable = false);

}  // namespace ss::runtime
