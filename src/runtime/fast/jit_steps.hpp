// A fused kernel's steps as the JIT module takes them (jit/jit_api.h): each
// function of one value but neg and not spelled as its formula's steps
// (types/unary.def), widened to double and rounded back where the formula
// computes in double, so the JIT builds the reference's operations in the
// reference's order and its results are the reference's bits.
#pragma once

#include <vector>

#include "ir/fusion.hpp"
#include "jit/jit_api.h"

namespace ss::runtime {

std::vector<SsJitStep> jit_steps(const std::vector<ir::FusedStep>& steps);

}  // namespace ss::runtime
