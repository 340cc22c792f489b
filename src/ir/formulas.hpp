// Elementwise formulas written once (types/unary.def) and rendered for every
// backend, tinygrad's renderer pattern: the reference evaluates a formula,
// CUDA C and the standalone C++ print it (render), the JIT walks its terms
// into LLVM IR. The same terms in the same order give the same bits.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/ops.hpp"

namespace ss::ir {

struct Term {
  enum class Kind { x, number, neg, add, sub, mul, div, call, select };
  // A call's function, or a select's test, decided when parsed (evaluate
  // runs per element: no string compares there).
  enum class Function { none, exp, log, tanh, erf, sqrt, fabs, greater, equal };
  Kind kind = Kind::x;
  double number = 0;
  std::string function;  // call: exp, log, tanh, erf, sqrt or fabs; select: ">" or "=="
  Function which = Function::none;
  std::vector<int> args;  // terms before this one; select: a, b, then, else
};

struct Formula {
  enum Width {
    kExact,   // the element's own float type gives the same bits
    kDouble,  // computed in double, then rounded to the element type
    kLogic,   // a bool operation: the backends' own
  };
  const char* name = "";  // as listings print it: "gelu", "not"
  Width width = kDouble;
  std::string text;         // as unary.def writes it
  std::vector<Term> terms;  // each term's arguments come before it; the last is the value
};

// The formula of `op`, parsed once from unary.def.
const Formula& formula(Unary op);

// The formula's value at x, in double, term by term.
double evaluate(const Formula& f, double x);

// A call's function of one double (exp, log, ...; the value itself for none).
double call(Term::Function f, double v);

// The function when the formula is one call of x (`exp(x)`), so a loop can
// call it directly; none otherwise.
Term::Function single_call(const Formula& f);

// The formula as a C expression of `x` (a C expression itself), fully
// parenthesised; each call's function is named by `function` when given
// (a target's own name for it: fabsf, __fsqrt_rn), else as written. With
// `floats`, its numbers are float literals (0.5f), rounded once to
// float32, so a float `x` keeps the whole expression in float.
std::string render(const Formula& f, const std::string& x,
                   const std::function<std::string(const std::string&)>& function = {},
                   bool floats = false);

// Parses a formula's text (for unary.def's rows, and tests); throws
// std::invalid_argument on text outside the grammar unary.def gives.
std::vector<Term> parse_formula(const std::string& text);

}  // namespace ss::ir
