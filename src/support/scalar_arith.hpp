// The language's arithmetic on single numbers, written once for every stage:
// controller scalars and the static numbers lowering folds follow Python
// (`//` and `%` floor, taking the divisor's sign; a division by zero is an
// error, E1509), with integers of 64 bits (a result past them is an error,
// E1510, where Python would grow); tensor elements follow numpy (an integer
// `// 0` or `% 0` is 0, a float one inf or NaN).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ss::support {

// A controller number: an int (64-bit, exact) or a float (a double).
struct Number {
  bool integer = false;
  std::int64_t i = 0;
  double f = 0;

  static Number of_int(std::int64_t x) { return {true, x, 0}; }
  static Number of_float(double x) { return {false, 0, x}; }
  double as_double() const { return integer ? static_cast<double>(i) : f; }
};

enum class ArithError { none, division_by_zero, overflow, unknown_op };

struct ArithResult {
  Number value;
  ArithError error = ArithError::none;
  bool ok() const { return error == ArithError::none; }
};

// `op` is "+", "-", "*", "/", "**", "//" or "%", as Python computes it:
// with two ints every operator but "/" gives an int (`**` with a negative
// exponent a float); with a float either side, floats.
ArithResult python_arith(std::string_view op, Number a, Number b);
ArithResult python_negate(Number a);

// `op` is "==", "!=", "<", "<=", ">" or ">=". Two ints compare exactly; an
// int against a float compares exactly too, as Python's do. Null: not a
// comparison.
std::optional<bool> python_compare(std::string_view op, Number a, Number b);

// Whether the int `x` is one i32 tensor element can hold.
bool fits_i32(std::int64_t x);

// numpy's floor division and remainder of tensor elements.
double numpy_floordiv(double a, double b, bool integers);
double numpy_mod(double a, double b, bool integers);

}  // namespace ss::support
