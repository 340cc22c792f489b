// types/binary.def's rows as the checker and the lowering read them: a
// function's name, how a program writes it and the type of its result.
// The row's position is its ir::Binary.
#pragma once

#include <string_view>
#include <vector>

#include "types/unary_functions.hpp"

namespace ss::types {

enum class BinaryResult {
  same_type,   // numbers: the operands' type
  float_type,  // an integer pair's result is f32
  comparison,  // a bool of two numbers
  logic,       // a bool of two bools (or of floats' truth)
};

struct BinaryFunction {
  const char* op;       // the row's identifier: "logical_and"
  const char* name;     // as listings print it: "and"
  const char* written;  // as a program writes it: "and", "+", "maximum"
  Spelled spelled;
  BinaryResult result;
};

// Every row, in binary.def's order.
const std::vector<BinaryFunction>& binary_functions();

// The position of the row a program writes as `written`, spelled a
// function (`maximum`) or an operator (`//`), or -1.
int binary_function(std::string_view written, Spelled spelled);

// The result of row `row` (an ir::Binary's number).
BinaryResult binary_result(int row);

// Whether the row's result is a bool.
bool yields_bool(BinaryResult result);

}  // namespace ss::types
