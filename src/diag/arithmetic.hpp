// The program's arithmetic mistakes on numbers (Python's rules:
// support/scalar_arith), worded once for the controller, which meets them
// at run, and the lowering, which meets them folding static numbers.
#pragma once

#include <optional>
#include <string>

#include "diag/codes.hpp"
#include "support/scalar_arith.hpp"

namespace ss::diag {

struct ArithmeticMistake {
  Code code;            // E1509 or E1510
  std::string message;  // "`//` divides by zero"
  std::string label;    // what the span shows: "a zero divisor"
  std::string help;
};

// The mistake `op` made, or nullopt for none (or an op numbers lack).
inline std::optional<ArithmeticMistake> arithmetic_mistake(const std::string& op,
                                                           support::ArithError error) {
  switch (error) {
    case support::ArithError::division_by_zero:
      return ArithmeticMistake{Code::E1509, "`" + op + "` divides by zero", "a zero divisor",
                               "numbers follow Python: test the divisor first (`if n != 0:`)"};
    case support::ArithError::overflow:
      return ArithmeticMistake{Code::E1510, "`" + op + "` overflows 64 bits", "past 2^63 - 1",
                               "integers are 64-bit: compute with floats (`2.0 ** 70`) past them"};
    case support::ArithError::none:
    case support::ArithError::unknown_op:
      break;
  }
  return std::nullopt;
}

}  // namespace ss::diag
