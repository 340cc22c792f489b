// The one arithmetic of single numbers (src/support/scalar_arith): Python's
// for controller scalars and folded constants, numpy's for tensor
// elements, at the edges: zero divisors, negative operands, 2^31 - 1, 2^53.
#include <doctest/doctest.h>

#include <cmath>

#include "support/scalar_arith.hpp"

using ss::support::numpy_floordiv;
using ss::support::numpy_mod;
using ss::support::python_arith;

TEST_CASE("controller numbers follow Python: floor division, the divisor's sign, no zero") {
  CHECK(*python_arith("//", -7, 2, true) == -4);
  CHECK(*python_arith("%", -7, 2, true) == 1);
  CHECK(*python_arith("%", 7, -2, true) == -1);
  CHECK(*python_arith("//", 7, -2, true) == -4);
  CHECK(*python_arith("//", 7.5, 2, false) == 3);
  CHECK(*python_arith("%", -7.5, 2, false) == 0.5);
  CHECK(*python_arith("//", 1, 0.1, false) == 9);  // Python's divmod, not floor(1 / 0.1) = 10
  CHECK(*python_arith("/", 7, 2, true) == 3.5);
  CHECK_FALSE(ss::support::python_integer_result("/", 2, true));
  CHECK_FALSE(ss::support::python_integer_result("**", -1, true));
  CHECK(ss::support::python_integer_result("//", 2, true));
  for (const char* op : {"/", "//", "%"}) {
    CAPTURE(op);
    CHECK_FALSE(python_arith(op, 7, 0, true).has_value());
    CHECK_FALSE(python_arith(op, 7.5, 0, false).has_value());
  }
  CHECK_FALSE(python_arith("**", 0, -1, true).has_value());
  // 2^31 - 1 and past it: no 32-bit wrap; exact up to 2^53.
  CHECK(*python_arith("+", 2147483647, 1, true) == 2147483648.0);
  CHECK(*python_arith("//", 2147483647, 1, true) == 2147483647);
  const double two53 = 9007199254740992.0;
  CHECK(*python_arith("-", two53, 1, true) == two53 - 1);
  CHECK(*python_arith("//", two53 - 1, 3, true) == 3002399751580330.0);
  CHECK(*python_arith("%", two53 - 1, 3, true) == 1);
  CHECK(*python_arith("*", 16777217, 1, true) == 16777217);  // past f32's 2^24
}

TEST_CASE("tensor elements follow numpy: integer // 0 is 0, a float's inf or NaN") {
  CHECK(numpy_floordiv(7, 0, true) == 0);
  CHECK(numpy_mod(7, 0, true) == 0);
  CHECK(std::isinf(numpy_floordiv(7, 0, false)));
  CHECK(std::isnan(numpy_floordiv(0, 0, false)));
  CHECK(std::isnan(numpy_mod(7, 0, false)));
  CHECK(numpy_floordiv(-7, 2, true) == -4);
  CHECK(numpy_mod(-7, 2, true) == 1);
  CHECK(numpy_mod(7, -2, false) == -1);
  CHECK(numpy_floordiv(1, 0.1, false) == 9);  // numpy.floor_divide(1, 0.1)
  CHECK(numpy_floordiv(2147483647, 2, true) == 1073741823);
}
