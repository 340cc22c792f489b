// Elementwise formulas written once (types/unary.def, types/binary.def) and
// rendered for every backend, tinygrad's renderer pattern: the reference
// evaluates a formula, CUDA C and the standalone C++ print it (render), the
// JIT walks its terms into LLVM IR. The same terms in the same order give
// the same bits.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/ops.hpp"

namespace ss::ir {

struct Term {
  enum class Kind { x, y, number, neg, add, sub, mul, div, compare, logic, call, select };
  // A call's function, decided when parsed (evaluate runs per element: no
  // string compares there).
  enum class Function {
    none,
    exp,
    log,
    tanh,
    erf,
    sqrt,
    fabs,
    floor,
    sin,
    cos,
    tan,
    asin,
    acos,
    atan,
    pow,  // the calls of two values from here on
    fmod,
    copysign
  };
  // A comparison's test, or logic's: both (&&) or either (||).
  enum class Test { none, lt, le, gt, ge, eq, ne, both, either };
  Kind kind = Kind::x;
  double number = 0;     // NaN for `nan`
  std::string function;  // a call's name as written; a comparison's or logic's operator
  Function which = Function::none;
  Test test = Test::none;
  std::vector<int> args;  // terms before this one; a select's: its test, then, else
};

struct Formula {
  enum Width {
    kExact,   // the element's own float type gives the same bits
    kDouble,  // computed in double, then rounded to the element type
    kLogic,   // a bool operation: the backends' own
  };
  const char* name = "";  // as listings print it: "gelu", "not", "floordiv"
  Width width = kDouble;
  std::string text;         // as the .def writes it
  std::vector<Term> terms;  // each term's arguments come before it; the last is the value
};

// The formula of `op`, parsed once from unary.def.
const Formula& formula(Unary op);

// The formula of `op`, parsed once from binary.def: its float one, or with
// `integers` the one for two integer operands (the float one where the row
// gives none).
const Formula& formula(Binary op, bool integers = false);

// The formula's value at x (and y), in double, term by term; a comparison
// or logic is 1 or 0.
double evaluate(const Formula& f, double x, double y = 0);

// A call's function of one double (exp, log, ...; the value itself for
// none), or of two (pow, fmod, copysign).
double call(Term::Function f, double v, double w = 0);

// How many values a call's function takes: 1 or 2.
int arity(Term::Function f);

// The function when the formula is one call of x (`exp(x)`), so a loop can
// call it directly; none otherwise.
Term::Function single_call(const Formula& f);

// The formula as a C expression of `x` and `y` (C expressions themselves),
// fully parenthesised; each call's function is named by `function` when
// given (a target's own name for it: fabsf, __fsqrt_rn), else as written,
// and `nan` is function("nan") called with no arguments (NAN without
// `function`). With `floats`, its numbers are float literals (0.5f),
// rounded once to float32, so float operands keep the whole expression in
// float. A comparison or logic is C's (an int, 1 or 0).
std::string render(const Formula& f, const std::string& x,
                   const std::function<std::string(const std::string&)>& function = {},
                   bool floats = false, const std::string& y = "y");

// Parses a formula's text of x (`variables` 1, unary.def's rows) or of x
// and y (2, binary.def's); throws std::invalid_argument on text outside
// the grammar the .def files give.
std::vector<Term> parse_formula(const std::string& text, int variables = 1);

}  // namespace ss::ir
