// The one arithmetic of single numbers (src/support/scalar_arith): Python's
// for controller scalars and folded constants (64-bit ints), numpy's for
// tensor elements, at the edges: zero divisors, negative operands,
// 2^31 - 1, 2^53, 2^63.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "support/scalar_arith.hpp"

using ss::support::ArithError;
using ss::support::Number;
using ss::support::numpy_floordiv;
using ss::support::numpy_mod;
using ss::support::python_arith;
using ss::support::python_compare;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

Number I(std::int64_t x) {
  return Number::of_int(x);
}
Number F(double x) {
  return Number::of_float(x);
}

// The int an operation gives; fails the test on a float or an error.
std::int64_t ints(const char* op, std::int64_t a, std::int64_t b) {
  const auto r = python_arith(op, I(a), I(b));
  REQUIRE(r.ok());
  REQUIRE(r.value.integer);
  return r.value.i;
}

double floats(const char* op, Number a, Number b) {
  const auto r = python_arith(op, a, b);
  REQUIRE(r.ok());
  REQUIRE_FALSE(r.value.integer);
  return r.value.f;
}

ArithError error_of(const char* op, Number a, Number b) {
  return python_arith(op, a, b).error;
}

}  // namespace

TEST_CASE("controller numbers follow Python: floor division, the divisor's sign, no zero") {
  CHECK(ints("//", -7, 2) == -4);
  CHECK(ints("%", -7, 2) == 1);
  CHECK(ints("%", 7, -2) == -1);
  CHECK(ints("//", 7, -2) == -4);
  CHECK(floats("//", F(7.5), I(2)) == 3);
  CHECK(floats("%", F(-7.5), I(2)) == 0.5);
  CHECK(floats("//", I(1), F(0.1)) == 9);  // Python's divmod, not floor(1 / 0.1) = 10
  CHECK(floats("/", I(7), I(2)) == 3.5);
  CHECK(floats("**", I(2), I(-1)) == 0.5);  // an int to a negative power is a float
  CHECK(ints("**", 3, 4) == 81);
  for (const char* op : {"/", "//", "%"}) {
    CAPTURE(op);
    CHECK(error_of(op, I(7), I(0)) == ArithError::division_by_zero);
    CHECK(error_of(op, F(7.5), I(0)) == ArithError::division_by_zero);
    CHECK(error_of(op, F(7.5), F(0.0)) == ArithError::division_by_zero);
  }
  CHECK(error_of("**", I(0), I(-1)) == ArithError::division_by_zero);
  CHECK(error_of("@", I(1), I(1)) == ArithError::unknown_op);
}

TEST_CASE("controller ints are 64-bit: exact past 2^31 and 2^53, an error past 2^63") {
  CHECK(ints("+", 2147483647, 1) == 2147483648);  // no 32-bit wrap
  CHECK(ints("//", 2147483647, 1) == 2147483647);
  CHECK(ints("*", 16777217, 1) == 16777217);  // past f32's 2^24
  const std::int64_t two53 = std::int64_t{1} << 53;
  CHECK(ints("+", two53, 1) == two53 + 1);  // a double would round it back to 2^53
  CHECK(ints("//", two53 + 1, 3) == 3002399751580331);
  CHECK(ints("%", two53 + 1, 3) == 0);
  CHECK(ints("**", 2, 62) == std::int64_t{1} << 62);
  CHECK(ints("-", kMin + 1, 1) == kMin);
  CHECK(ints("%", kMin, -1) == 0);
  CHECK(ints("//", kMin, 2) == kMin / 2);
  CHECK(error_of("+", I(kMax), I(1)) == ArithError::overflow);
  CHECK(error_of("-", I(kMin), I(1)) == ArithError::overflow);
  CHECK(error_of("*", I(std::int64_t{1} << 32), I(std::int64_t{1} << 31)) == ArithError::overflow);
  CHECK(error_of("**", I(2), I(63)) == ArithError::overflow);
  CHECK(error_of("**", I(10), I(19)) == ArithError::overflow);
  CHECK(ints("**", 10, 18) == 1000000000000000000);
  CHECK(ints("**", -2, 63) == kMin);
  CHECK(error_of("//", I(kMin), I(-1)) == ArithError::overflow);
  CHECK(ss::support::python_negate(I(kMin)).error == ArithError::overflow);
  CHECK(ss::support::python_negate(I(kMax)).value.i == -kMax);
  // A float on either side makes it floats, as Python's.
  CHECK(floats("+", I(kMax), F(1.0)) == 9223372036854775808.0);
}

TEST_CASE("comparisons are exact: ints as ints, an int against a float as Python's") {
  const std::int64_t two53 = std::int64_t{1} << 53;
  CHECK(*python_compare("<", I(two53), I(two53 + 1)));  // equal as doubles
  CHECK_FALSE(*python_compare("==", I(two53), I(two53 + 1)));
  CHECK(*python_compare(">", I(2147483648), I(2147483647)));
  CHECK(*python_compare(">", I(two53 + 1), F(9007199254740992.0)));  // Python: True
  CHECK(*python_compare("==", I(two53), F(9007199254740992.0)));
  CHECK(*python_compare("<", I(kMax), F(9223372036854775808.0)));  // 2^63 as a float
  CHECK(*python_compare(">", I(kMin), F(-1e300)));
  CHECK(*python_compare("<", I(3), F(3.5)));
  CHECK(*python_compare(">", I(-3), F(-3.5)));
  CHECK(*python_compare("<=", I(3), F(3.0)));
  CHECK(*python_compare("<", I(kMax), F(INFINITY)));
  CHECK(*python_compare(">", F(2.5), I(2)));
  CHECK_FALSE(*python_compare("==", I(1), F(NAN)));
  CHECK(*python_compare("!=", I(1), F(NAN)));
  CHECK_FALSE(*python_compare("<", F(NAN), F(1)));
  CHECK_FALSE(python_compare("+", I(1), I(2)).has_value());
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
