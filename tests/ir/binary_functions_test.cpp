// The functions of two values written once (src/types/binary.def): every
// row parses, its formula gives numpy's value at every pair of the goldens
// (tests/goldens/make_binary_goldens.py), NaN, signed zeros and integer
// division by zero included, and agrees with the controller's own floor
// division and remainder over a dense sweep; the lowering and the checker
// find each row by how a program writes it.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <stdexcept>

#include "ir/formulas.hpp"
#include "support/binary_goldens.hpp"
#include "support/scalar_arith.hpp"
#include "types/binary_functions.hpp"

using ss::ir::Binary;
using ss::ir::evaluate;
using ss::ir::formula;

namespace {

Binary row_named(const std::string& name) {
  const auto& rows = ss::types::binary_functions();
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (rows[k].name == name) return static_cast<Binary>(k);
  throw std::invalid_argument("no row " + name);
}

}  // namespace

TEST_CASE("every binary.def row parses once, named and written once, in the IR's order") {
  const auto& rows = ss::types::binary_functions();
  REQUIRE(rows.size() == static_cast<std::size_t>(Binary::logical_or) + 1);
  std::set<std::string> names, written;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    CAPTURE(rows[k].name);
    CHECK(names.insert(rows[k].name).second);
    CHECK(written.insert(rows[k].written).second);
    CHECK(ss::types::binary_function(rows[k].written, rows[k].spelled) == static_cast<int>(k));
    for (const bool integers : {false, true}) {
      const auto& f = formula(static_cast<Binary>(k), integers);
      CHECK(std::string(f.name) == rows[k].name);
      CHECK_FALSE(f.terms.empty());
      CHECK(f.terms.size() <= 64);  // evaluate's bound
    }
  }
  CHECK(ss::types::binary_function("maximum", ss::types::Spelled::function) ==
        static_cast<int>(Binary::maximum));
  CHECK(ss::types::binary_function("//", ss::types::Spelled::operator_) ==
        static_cast<int>(Binary::floordiv));
  CHECK(ss::types::binary_function("maximum", ss::types::Spelled::operator_) == -1);
  // Only the rows whose integers differ give a formula of their own.
  CHECK(formula(Binary::add, true).text == formula(Binary::add).text);
  CHECK(formula(Binary::mod, true).text != formula(Binary::mod).text);
  CHECK(formula(Binary::floordiv, true).text != formula(Binary::floordiv).text);
}

TEST_CASE("each binary function gives numpy's value: NaN, signed zeros, integer // 0 and % 0") {
  const auto goldens = ss::test::binary_goldens();
  REQUIRE(goldens.size() > 10000);
  std::size_t wrong = 0;
  for (const auto& g : goldens) {
    const double got = evaluate(formula(row_named(g.row), g.integers), g.x, g.y);
    // (an integer's zero has no sign)
    const bool same = g.integers ? got == g.want || (std::isnan(got) && std::isnan(g.want))
                                 : ss::test::same_value(got, g.want);
    const std::string what = g.row + (g.integers ? " of integers " : " ");
    if (!same && wrong++ < 10)
      MESSAGE(what << g.x << ", " << g.y << ": numpy " << g.want << ", the formula " << got);
  }
  CHECK(wrong == 0);
  // The cases the rows' comments name.
  CHECK(evaluate(formula(Binary::floordiv), 1.0, 0.1) == 9.0);
  CHECK(evaluate(formula(Binary::floordiv, true), 7, 0) == 0);
  CHECK(std::isinf(evaluate(formula(Binary::floordiv), 7, 0)));
  CHECK(std::isnan(evaluate(formula(Binary::mod), 7, 0)));
  CHECK(evaluate(formula(Binary::mod, true), -7, 2) == 1);
  CHECK(std::signbit(evaluate(formula(Binary::mod), 4, -2)));  // the divisor's sign, at zero too
  CHECK(std::isnan(evaluate(formula(Binary::maximum), NAN, 1)));
  CHECK(std::isnan(evaluate(formula(Binary::minimum), 1, NAN)));
  CHECK(evaluate(formula(Binary::ne), NAN, NAN) == 1);
  CHECK(evaluate(formula(Binary::eq), NAN, NAN) == 0);
}

TEST_CASE("the formulas of // and % agree with the controller's divmod over a dense sweep") {
  std::vector<double> values = {0.0, -0.0, INFINITY, -INFINITY, 1e-300, -1e300};
  for (int k = -60; k <= 60; ++k) values.push_back(k * 0.37);
  for (int k = -40; k <= 40; ++k) values.push_back(std::ldexp(1.0 + k / 64.0, k));
  std::size_t wrong = 0;
  for (const double x : values)
    for (const double y : values) {
      const double d = ss::support::numpy_floordiv(x, y, false);
      const double m = ss::support::numpy_mod(x, y, false);
      if ((!ss::test::same_value(evaluate(formula(Binary::floordiv), x, y), d) ||
           !ss::test::same_value(evaluate(formula(Binary::mod), x, y), m)) &&
          wrong++ < 10)
        MESSAGE(x << ", " << y << ": divmod " << d << ", " << m);
    }
  for (int x = -40; x <= 40; ++x)
    for (int y = -9; y <= 9; ++y)
      if (evaluate(formula(Binary::floordiv, true), x, y) !=
              ss::support::numpy_floordiv(x, y, true) ||
          evaluate(formula(Binary::mod, true), x, y) != ss::support::numpy_mod(x, y, true))
        ++wrong;
  CHECK(wrong == 0);
}

TEST_CASE("two-value formulas: names bound first, tests before `?`, each function's arity") {
  const auto terms = ss::ir::parse_formula("m = x * y; m + m", 2);
  CHECK(terms.size() == 4);  // x, y, mul, add: a bound name is one term
  CHECK(evaluate({.terms = terms}, 3, 4) == 24);
  for (const char* bad : {"y", "x = 1.0; x", "m = x; m = y; m", "m = x m", "x ? y : 1.0", "fmod(x)",
                          "pow(x, y, x)", "exp(x, y)"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(ss::ir::parse_formula(bad, std::string(bad) == "y" ? 1 : 2),
                    std::invalid_argument);
  }
  CHECK(ss::ir::render(formula(Binary::maximum), "a", {}, false, "b") ==
        "((a != a) || (b != b) ? NAN : (a > b ? a : b))");
  CHECK(ss::ir::render(formula(Binary::lt), "a", {}, true, "b") == "(a < b)");
}
