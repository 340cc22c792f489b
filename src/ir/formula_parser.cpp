// The formula grammar of types/unary.def and types/binary.def, by recursive
// descent. Terms are appended as their arguments finish, so each term's
// arguments come before it; x, y and a bound name are one term however
// often the text names them.
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>

#include "ir/formulas.hpp"

namespace ss::ir {
namespace {

using F = Term::Function;
using T = Term::Test;

constexpr std::array<std::pair<const char*, F>, 16> kFunctions = {{{"exp", F::exp},
                                                                   {"log", F::log},
                                                                   {"tanh", F::tanh},
                                                                   {"erf", F::erf},
                                                                   {"sqrt", F::sqrt},
                                                                   {"fabs", F::fabs},
                                                                   {"floor", F::floor},
                                                                   {"sin", F::sin},
                                                                   {"cos", F::cos},
                                                                   {"tan", F::tan},
                                                                   {"asin", F::asin},
                                                                   {"acos", F::acos},
                                                                   {"atan", F::atan},
                                                                   {"pow", F::pow},
                                                                   {"fmod", F::fmod},
                                                                   {"copysign", F::copysign}}};

// Longest first, so `<=` isn't read as `<`.
constexpr std::array<std::pair<const char*, T>, 6> kComparisons = {
    {{"<=", T::le}, {">=", T::ge}, {"==", T::eq}, {"!=", T::ne}, {"<", T::lt}, {">", T::gt}}};

F function_named(const std::string& name) {
  for (const auto& [known, f] : kFunctions)
    if (name == known) return f;
  return F::none;
}

class Parser {
 public:
  Parser(const std::string& text, int variables) : text_(text), variables_(variables) {}

  std::vector<Term> run() {
    while (binding()) {
    }
    const int value = ternary();
    skip();
    if (at_ < text_.size()) fail("unexpected text");
    if (value != static_cast<int>(terms_.size()) - 1) fail("the value isn't computed last");
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
  std::string word() {
    skip();
    std::string name;
    while (at_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[at_])) != 0))
      name += text_[at_++];
    return name;
  }
  int add(Term t) {
    terms_.push_back(std::move(t));
    return static_cast<int>(terms_.size()) - 1;
  }

  // `name = value;`, naming a value the rest may use.
  bool binding() {
    const std::size_t start = at_;
    const std::string name = word();
    skip();
    const bool assigns = !name.empty() && at_ < text_.size() && text_[at_] == '=' &&
                         (at_ + 1 >= text_.size() || text_[at_ + 1] != '=');
    if (!assigns) {
      at_ = start;
      return false;
    }
    if (name == "x" || name == "y" || name == "nan" || function_named(name) != F::none ||
        names_.count(name) != 0)
      fail("`" + name + "` can't be bound");
    ++at_;  // =
    names_[name] = ternary();
    if (!eat(";")) fail("expected `;`");
    return true;
  }

  int ternary() {
    const int test = either();
    if (!eat("?")) return test;
    const auto kind = terms_[static_cast<std::size_t>(test)].kind;
    if (kind != Term::Kind::compare && kind != Term::Kind::logic)
      fail("a `?` needs a comparison before it");
    const int then = ternary();
    if (!eat(":")) fail("expected `:`");
    const int otherwise = ternary();
    return add({.kind = Term::Kind::select, .args = {test, then, otherwise}});
  }
  int either() {
    int left = both();
    while (eat("||"))
      left = add(
          {.kind = Term::Kind::logic, .function = "||", .test = T::either, .args = {left, both()}});
    return left;
  }
  int both() {
    int left = comparison();
    while (eat("&&"))
      left = add({.kind = Term::Kind::logic,
                  .function = "&&",
                  .test = T::both,
                  .args = {left, comparison()}});
    return left;
  }
  int comparison() {
    const int left = sum();
    for (const auto& [op, test] : kComparisons)
      if (eat(op))
        return add(
            {.kind = Term::Kind::compare, .function = op, .test = test, .args = {left, sum()}});
    return left;
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
  int variable(int& at, Term::Kind kind) {
    if (at < 0) at = add({.kind = kind});
    return at;
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
    const std::string name = word();
    if (name == "x") return variable(x_, Term::Kind::x);
    if (name == "y" && variables_ == 2) return variable(y_, Term::Kind::y);
    if (name == "nan")
      return add({.kind = Term::Kind::number, .number = std::numeric_limits<double>::quiet_NaN()});
    if (const auto bound = names_.find(name); bound != names_.end()) return bound->second;
    const F which = function_named(name);
    if (which == F::none) fail(name.empty() ? "expected a value" : "unknown name `" + name + "`");
    if (!eat("(")) fail("expected `(`");
    std::vector<int> args = {ternary()};
    for (int k = 1; k < arity(which); ++k) {
      if (!eat(",")) fail("`" + name + "` takes " + std::to_string(arity(which)) + " values");
      args.push_back(ternary());
    }
    if (!eat(")")) fail("expected `)`");
    return add({.kind = Term::Kind::call, .function = name, .which = which, .args = args});
  }

  const std::string& text_;
  const int variables_;
  std::size_t at_ = 0;
  int x_ = -1, y_ = -1;  // their terms, once named
  std::map<std::string, int> names_;
  std::vector<Term> terms_;
};

}  // namespace

std::vector<Term> parse_formula(const std::string& text, int variables) {
  return Parser(text, variables).run();
}

int arity(Term::Function f) {
  return f >= Term::Function::pow ? 2 : 1;
}

}  // namespace ss::ir
