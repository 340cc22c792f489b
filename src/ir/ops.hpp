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
// types/binary.def's rows (each with its formula: ir/formulas.hpp).
enum class Binary {
#define SS_BINARY(op, name, written, spelled, width, result, formula, integers) op,
#include "types/binary.def"
#undef SS_BINARY
};
enum class Reduce { sum, mean, max, min, logsumexp, var, std };

}  // namespace ss::ir
