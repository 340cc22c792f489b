#include "ir/formulas.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace ss::ir {
namespace {

// Recursive descent over unary.def's grammar; terms are appended as their
// arguments finish, so each term's arguments come before it.
class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  std::vector<Term> run() {
    ternary();
    skip();
    if (at_ < text_.size()) fail("unexpected text");
    return std::move(terms_);
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument("formula `" + text_ + "`: " + why + " at " + std::to_string(at_));
  }
  void skip() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }
  bool eat(const std::string& token) {
    skip();
    if (text_.compare(at_, token.size(), token) != 0) return false;
    at_ += token.size();
    return true;
  }
  int add(Term t) {
    terms_.push_back(std::move(t));
    return static_cast<int>(terms_.size()) - 1;
  }

  int ternary() {
    const int a = sum();
    std::string test;
    if (eat(">"))
      test = ">";
    else if (eat("=="))
      test = "==";
    else
      return a;
    const int b = sum();
    if (!eat("?")) fail("expected `?`");
    const int then = ternary();
    if (!eat(":")) fail("expected `:`");
    const int otherwise = ternary();
    return add({.kind = Term::Kind::select,
                .function = test,
                .which = test == ">" ? Term::Function::greater : Term::Function::equal,
                .args = {a, b, then, otherwise}});
  }
  int sum() {
    int left = product();
    for (;;) {
      if (eat("+"))
        left = add({.kind = Term::Kind::add, .args = {left, product()}});
      else if (eat("-"))
        left = add({.kind = Term::Kind::sub, .args = {left, product()}});
      else
        return left;
    }
  }
  int product() {
    int left = negation();
    for (;;) {
      if (eat("*"))
        left = add({.kind = Term::Kind::mul, .args = {left, negation()}});
      else if (eat("/"))
        left = add({.kind = Term::Kind::div, .args = {left, negation()}});
      else
        return left;
    }
  }
  int negation() {
    if (eat("-")) return add({.kind = Term::Kind::neg, .args = {negation()}});
    return primary();
  }
  int primary() {
    skip();
    if (eat("(")) {
      const int inner = ternary();
      if (!eat(")")) fail("expected `)`");
      return inner;
    }
    if (at_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[at_])) != 0)) {
      const char* start = text_.c_str() + at_;
      char* end = nullptr;
      const double value = std::strtod(start, &end);
      at_ += static_cast<std::size_t>(end - start);
      return add({.kind = Term::Kind::number, .number = value});
    }
    std::string name;
    while (at_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[at_])) != 0))
      name += text_[at_++];
    if (name == "x") return add({.kind = Term::Kind::x});
    using F = Term::Function;
    static const std::array<std::pair<const char*, F>, 6> functions = {{{"exp", F::exp},
                                                                        {"log", F::log},
                                                                        {"tanh", F::tanh},
                                                                        {"erf", F::erf},
                                                                        {"sqrt", F::sqrt},
                                                                        {"fabs", F::fabs}}};
    F which = F::none;
    for (const auto& [known, f] : functions)
      if (name == known) which = f;
    if (which == F::none)
      fail(name.empty() ? "expected a value" : "unknown function `" + name + "`");
    if (!eat("(")) fail("expected `(`");
    const int argument = ternary();
    if (!eat(")")) fail("expected `)`");
    return add({.kind = Term::Kind::call, .function = name, .which = which, .args = {argument}});
  }

  const std::string& text_;
  std::size_t at_ = 0;
  std::vector<Term> terms_;
};

std::vector<Formula> make_table() {
  std::vector<Formula> table;
#define SS_UNARY(op, printed, spelled, width, text_result, text) \
  table.push_back({printed, Formula::width, text, parse_formula(text)});
#include "types/unary.def"
#undef SS_UNARY
  return table;
}

}  // namespace

std::vector<Term> parse_formula(const std::string& text) {
  return Parser(text).run();
}

const Formula& formula(Unary op) {
  static const std::vector<Formula> table = make_table();
  return table.at(static_cast<std::size_t>(op));
}

double call(Term::Function f, double v) {
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
    case Term::Function::none:
    case Term::Function::greater:
    case Term::Function::equal:
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

double evaluate(const Formula& f, double x) {
  constexpr std::size_t kMost = 32;  // unary.def's longest has 17 terms
  double v[kMost];
  const std::size_t n = f.terms.size() < kMost ? f.terms.size() : kMost;
  for (std::size_t i = 0; i < n; ++i) {
    const Term& t = f.terms[i];
    const auto arg = [&](std::size_t k) { return v[static_cast<std::size_t>(t.args[k])]; };
    switch (t.kind) {
      case Term::Kind::x:
        v[i] = x;
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
      case Term::Kind::call:
        v[i] = call(t.which, arg(0));
        break;
      case Term::Kind::select: {
        const bool yes = t.which == Term::Function::greater ? arg(0) > arg(1) : arg(0) == arg(1);
        v[i] = yes ? arg(2) : arg(3);
        break;
      }
    }
  }
  return n == 0 ? x : v[n - 1];
}

std::string render(const Formula& f, const std::string& x,
                   const std::function<std::string(const std::string&)>& function, bool floats) {
  std::vector<std::string> out(f.terms.size());
  for (std::size_t i = 0; i < f.terms.size(); ++i) {
    const Term& t = f.terms[i];
    const auto arg = [&](std::size_t k) { return out[static_cast<std::size_t>(t.args[k])]; };
    switch (t.kind) {
      case Term::Kind::x:
        out[i] = x;
        break;
      case Term::Kind::number: {
        char text[40];
        if (floats)
          std::snprintf(text, sizeof text, "%.9g",
                        static_cast<double>(static_cast<float>(t.number)));
        else
          std::snprintf(text, sizeof text, "%.17g", t.number);
        out[i] = text;
        if (out[i].find_first_of(".en") == std::string::npos) out[i] += ".0";
        if (floats) out[i] += "f";
        break;
      }
      case Term::Kind::neg:
        out[i] = "(-" + arg(0) + ")";
        break;
      case Term::Kind::add:
        out[i] = "(" + arg(0) + " + " + arg(1) + ")";
        break;
      case Term::Kind::sub:
        out[i] = "(" + arg(0) + " - " + arg(1) + ")";
        break;
      case Term::Kind::mul:
        out[i] = "(" + arg(0) + " * " + arg(1) + ")";
        break;
      case Term::Kind::div:
        out[i] = "(" + arg(0) + " / " + arg(1) + ")";
        break;
      case Term::Kind::call:
        out[i] = (function ? function(t.function) : t.function) + "(" + arg(0) + ")";
        break;
      case Term::Kind::select:
        out[i] =
            "(" + arg(0) + " " + t.function + " " + arg(1) + " ? " + arg(2) + " : " + arg(3) + ")";
        break;
    }
  }
  return out.empty() ? x : out.back();
}

}  // namespace ss::ir
