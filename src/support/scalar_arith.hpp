// The language's arithmetic on single numbers, written once for every stage:
// controller scalars and the static numbers lowering folds follow Python
// (`//` and `%` floor, taking the divisor's sign; a division by zero is an
// error, E1509), tensor elements follow numpy (an integer `// 0` or `% 0`
// is 0, a float one inf or NaN). Values travel as doubles; integers are
// exact while they stay within 2^53.
#pragma once

#include <optional>
#include <string_view>

namespace ss::support {

// `op` is "+", "-", "*", "/", "**", "//" or "%". Python's rules: with two
// integers, every operator but "/" gives an integer (`**` with a negative
// exponent a float, as Python's). Null: a division by zero (or an operator
// not in the list).
std::optional<double> python_arith(std::string_view op, double a, double b, bool integers);

// Whether python_arith's result for `op` on integers is an integer.
bool python_integer_result(std::string_view op, double b, bool integers);

// numpy's floor division and remainder of tensor elements.
double numpy_floordiv(double a, double b, bool integers);
double numpy_mod(double a, double b, bool integers);

}  // namespace ss::support
