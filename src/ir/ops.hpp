// The kinds of elementwise and reduction operations a graph node applies
// (Node::sub): the IR's list, which every executor implements.
#pragma once

namespace ss::ir {

// types/unary.def's rows (each with its formula: ir/formulas.hpp).
enum class Unary {
#define SS_UNARY(op, name, spelled, width, result, formula) op,
#include "types/unary.def"
#undef SS_UNARY
};
enum class Binary {
  add,
  sub,
  mul,
  div,
  pow,
  mod,
  floordiv,
  maximum,
  minimum,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  logical_and,
  logical_or,
};
enum class Reduce { sum, mean, max, min, logsumexp, var, std };

}  // namespace ss::ir
