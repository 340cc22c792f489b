#include "ir/formulas.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace ss::ir {
namespace {

std::vector<Formula> unary_table() {
  std::vector<Formula> table;
#define SS_UNARY(op, printed, spelled, width, text_result, text) \
  table.push_back({printed, Formula::width, text, parse_formula(text, 1)});
#include "types/unary.def"
#undef SS_UNARY
  return table;
}

// Each row's float formula, then its integer one (the float one again
// where the row gives none).
std::vector<Formula> binary_table() {
  std::vector<Formula> table;
  const auto row = [&](const char* name, Formula::Width width, const char* text,
                       const std::string& integers) {
    table.push_back({name, width, text, parse_formula(text, 2)});
    const std::string second = integers.empty() ? text : integers;
    table.push_back({name, width, second, parse_formula(second, 2)});
  };
#define SS_BINARY(op, name, written, spelled, width, result, text, integers) \
  row(name, Formula::width, text, integers);
#include "types/binary.def"
#undef SS_BINARY
  return table;
}

bool passes(Term::Test test, double a, double b) {
  switch (test) {
    case Term::Test::lt:
      return a < b;
    case Term::Test::le:
      return a <= b;
    case Term::Test::gt:
      return a > b;
    case Term::Test::ge:
      return a >= b;
    case Term::Test::eq:
      return a == b;
    case Term::Test::ne:
      return a != b;
    case Term::Test::both:
      return a != 0 && b != 0;
    case Term::Test::either:
      return a != 0 || b != 0;
    case Term::Test::none:
      break;
  }
  return false;
}

std::string literal(double number, bool floats) {
  char text[40];
  if (floats)
    std::snprintf(text, sizeof text, "%.9g", static_cast<double>(static_cast<float>(number)));
  else
    std::snprintf(text, sizeof text, "%.17g", number);
  std::string out = text;
  if (out.find_first_of(".en") == std::string::npos) out += ".0";
  if (floats) out += "f";
  return out;
}

}  // namespace

const Formula& formula(Unary op) {
  static const std::vector<Formula> table = unary_table();
  return table.at(static_cast<std::size_t>(op));
}

const Formula& formula(Binary op, bool integers) {
  static const std::vector<Formula> table = binary_table();
  return table.at(static_cast<std::size_t>(op) * 2 + (integers ? 1 : 0));
}

double call(Term::Function f, double v, double w) {
  switch (f) {
    case Term::Function::exp:
      return std::exp(v);
    case Term::Function::log:
      return std::log(v);
    case Term::Function::tanh:
      return std::tanh(v);
    case Term::Function::erf:
      return std::erf(v);
    case Term::Function::sqrt:
      return std::sqrt(v);
    case Term::Function::fabs:
      return std::fabs(v);
    case Term::Function::floor:
      return std::floor(v);
    case Term::Function::sin:
      return std::sin(v);
    case Term::Function::cos:
      return std::cos(v);
    case Term::Function::tan:
      return std::tan(v);
    case Term::Function::asin:
      return std::asin(v);
    case Term::Function::acos:
      return std::acos(v);
    case Term::Function::atan:
      return std::atan(v);
    case Term::Function::pow:
      return std::pow(v, w);
    case Term::Function::fmod:
      return std::fmod(v, w);
    case Term::Function::copysign:
      return std::copysign(v, w);
    case Term::Function::none:
      break;
  }
  return v;
}

Term::Function single_call(const Formula& f) {
  if (f.terms.size() == 2 && f.terms[0].kind == Term::Kind::x &&
      f.terms[1].kind == Term::Kind::call)
    return f.terms[1].which;
  return Term::Function::none;
}

double evaluate(const Formula& f, double x, double y) {
  constexpr std::size_t kMost = 64;  // binary.def's longest has 33 terms
  double v[kMost];
  const std::size_t n = f.terms.size() < kMost ? f.terms.size() : kMost;
  for (std::size_t i = 0; i < n; ++i) {
    const Term& t = f.terms[i];
    const auto arg = [&](std::size_t k) { return v[static_cast<std::size_t>(t.args[k])]; };
    switch (t.kind) {
      case Term::Kind::x:
        v[i] = x;
        break;
      case Term::Kind::y:
        v[i] = y;
        break;
      case Term::Kind::number:
        v[i] = t.number;
        break;
      case Term::Kind::neg:
        v[i] = -arg(0);
        break;
      case Term::Kind::add:
        v[i] = arg(0) + arg(1);
        break;
      case Term::Kind::sub:
        v[i] = arg(0) - arg(1);
        break;
      case Term::Kind::mul:
        v[i] = arg(0) * arg(1);
        break;
      case Term::Kind::div:
        v[i] = arg(0) / arg(1);
        break;
      case Term::Kind::compare:
      case Term::Kind::logic:
        v[i] = passes(t.test, arg(0), arg(1)) ? 1.0 : 0.0;
        break;
      case Term::Kind::call:
        v[i] = call(t.which, arg(0), t.args.size() > 1 ? arg(1) : 0.0);
        break;
      case Term::Kind::select:
        v[i] = arg(0) != 0 ? arg(1) : arg(2);
        break;
    }
  }
  return n == 0 ? x : v[n - 1];
}

std::string render(const Formula& f, const std::string& x,
                   const std::function<std::string(const std::string&)>& function, bool floats,
                   const std::string& y) {
  // Each term's text, parenthesised; a comparison's or logic's also bare,
  // for a select's test.
  std::vector<std::string> out(f.terms.size()), bare(f.terms.size());
  for (std::size_t i = 0; i < f.terms.size(); ++i) {
    const Term& t = f.terms[i];
    const auto arg = [&](std::size_t k) { return out[static_cast<std::size_t>(t.args[k])]; };
    const auto infix = [&](const char* op) { return "(" + arg(0) + op + arg(1) + ")"; };
    switch (t.kind) {
      case Term::Kind::x:
        out[i] = x;
        break;
      case Term::Kind::y:
        out[i] = y;
        break;
      case Term::Kind::number:
        if (std::isnan(t.number))
          out[i] = function ? function("nan") + "()" : "NAN";
        else
          out[i] = literal(t.number, floats);
        break;
      case Term::Kind::neg:
        out[i] = "(-" + arg(0) + ")";
        break;
      case Term::Kind::add:
        out[i] = infix(" + ");
        break;
      case Term::Kind::sub:
        out[i] = infix(" - ");
        break;
      case Term::Kind::mul:
        out[i] = infix(" * ");
        break;
      case Term::Kind::div:
        out[i] = infix(" / ");
        break;
      case Term::Kind::compare:
      case Term::Kind::logic:
        bare[i] = arg(0) + " " + t.function + " " + arg(1);
        out[i] = "(" + bare[i] + ")";
        break;
      case Term::Kind::call: {
        out[i] = (function ? function(t.function) : t.function) + "(" + arg(0);
        for (std::size_t k = 1; k < t.args.size(); ++k) out[i] += ", " + arg(k);
        out[i] += ")";
        break;
      }
      case Term::Kind::select:
        out[i] =
            "(" + bare[static_cast<std::size_t>(t.args[0])] + " ? " + arg(1) + " : " + arg(2) + ")";
        break;
    }
  }
  return out.empty() ? x : out.back();
}

}  // namespace ss::ir
