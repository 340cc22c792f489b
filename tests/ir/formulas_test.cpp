// Elementwise formulas written once (src/types/unary.def): every row parses,
// evaluates to what the formula says in C++, and renders as C that means
// the same; text outside the grammar is refused.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

#include "ir/formulas.hpp"
#include "types/unary_functions.hpp"

using ss::ir::evaluate;
using ss::ir::formula;
using ss::ir::Unary;

TEST_CASE("every unary function has its formula, evaluated term by term as C++ computes it") {
  for (int k = 0; k < static_cast<int>(ss::types::unary_functions().size()); ++k) {
    const auto& f = formula(static_cast<Unary>(k));
    CAPTURE(f.name);
    CHECK_FALSE(f.terms.empty());
    CHECK(f.terms.size() <= 32);  // evaluate's bound
  }
  for (const double x : {-3.5, -1.0, -0.0, 0.0, 1e-8, 0.5, 2.0, 7.25}) {
    CAPTURE(x);
    CHECK(evaluate(formula(Unary::gelu), x) == 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))));
    CHECK(evaluate(formula(Unary::gelu_grad), x) ==
          0.5 * (1.0 + std::erf(x / std::sqrt(2.0))) +
              x * std::exp(-0.5 * x * x) / std::sqrt(2.0 * 3.14159265358979323846));
    CHECK(evaluate(formula(Unary::sigmoid), x) ==
          (x > 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x))));
    CHECK(evaluate(formula(Unary::sigmoid), x) ==
          doctest::Approx(1.0 / (1.0 + std::exp(-x))).epsilon(1e-15));
    CHECK(evaluate(formula(Unary::relu), x) == (x > 0 ? x : 0.0));
    CHECK(evaluate(formula(Unary::neg), x) == -x);
    CHECK(evaluate(formula(Unary::logical_not), x) == (x == 0 ? 1.0 : 0.0));
  }
  CHECK(evaluate(formula(Unary::relu), NAN) == 0.0);  // NaN > 0 is false
  CHECK(std::isnan(evaluate(formula(Unary::sqrt), -1.0)));
}

TEST_CASE("a formula renders as fully parenthesised C, its functions named by the target") {
  CHECK(ss::ir::render(formula(Unary::gelu), "v") ==
        "((0.5 * v) * (1.0 + erf((v / 1.4142135623730951))))");
  CHECK(ss::ir::render(formula(Unary::relu), "v") == "(v > 0.0 ? v : 0.0)");
  CHECK(ss::ir::render(formula(Unary::abs), "v", [](const std::string& f) {
          return f == "fabs" ? std::string("fabsf") : f;
        }) == "fabsf(v)");
  CHECK(ss::ir::render(formula(Unary::sigmoid), "(double)a") ==
        "((double)a > 0.0 ? (1.0 / (1.0 + exp((-(double)a)))) : (exp((double)a) / (1.0 + "
        "exp((double)a))))");
  // Far below 0, where exp(-x) overflows a float, sigmoid is still exp(x).
  CHECK(evaluate(formula(Unary::sigmoid), -100.0) == doctest::Approx(std::exp(-100.0)));
}

TEST_CASE("text outside the formula grammar is refused, saying where") {
  for (const char* bad : {"x +", "sinc(x)", "(x", "x ? 1.0 : 0.0", "x > 0.0 ? x", "y", "x x"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(ss::ir::parse_formula(bad), std::invalid_argument);
  }
  CHECK(ss::ir::parse_formula("-x * 2.0").size() == 4);  // x, neg, 2.0, mul
}
