// types/unary.def's rows as the checker and the lowering read them: a
// function's name, how a program spells it and the type of its result.
// The row's position is its ir::Unary.
#pragma once

#include <string_view>
#include <vector>

namespace ss::types {

enum class Spelled {
  function,   // a program calls it by name: exp(x)
  operator_,  // -x, not x
  internal,   // made by differentiation only
};

enum class UnaryResult {
  same_type,   // numbers: the operand's type, an integer's too
  float_type,  // floats: a float's type; an integer is computed as f32
  bool_type,
};

struct UnaryFunction {
  const char* op;    // the row's identifier: "logical_not"
  const char* name;  // as programs and listings spell it: "not"
  Spelled spelled;
  UnaryResult result;
};

// Every row, in unary.def's order.
const std::vector<UnaryFunction>& unary_functions();

// The position of the row a program calls as `name` (spelled a function),
// or -1.
int unary_function(std::string_view name);

}  // namespace ss::types
