// Dims from dims: `dim H1 = H - K + 1`. An expression over dims and integer
// literals with + - * / (which must divide) and // (floor). The checker keeps
// a product as the axis of its factors (`H4 * W4 * C2` is the grouped axis
// `(h w c)`); any other expression is one factor named by its canonical
// text, so two dims are one axis when their expressions are the same after
// folding literals, term for term. Its size is computed from the dims' sizes
// when they are known: at check time, or when the host sizes them at load.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ss::types {

struct DimExpr {
  enum class Kind { name, literal, add, sub, mul, div, floordiv };
  Kind kind = Kind::literal;
  std::string name;            // name
  std::int64_t value = 0;      // literal
  std::vector<DimExpr> items;  // an operation's two operands

  static DimExpr literal(std::int64_t n) { return {Kind::literal, {}, n, {}}; }
  static DimExpr named(std::string n) { return {Kind::name, std::move(n), 0, {}}; }
  static DimExpr op(Kind k, DimExpr a, DimExpr b) {
    DimExpr e{k, {}, 0, {}};
    e.items.push_back(std::move(a));
    e.items.push_back(std::move(b));
    return e;
  }
  bool is_op() const { return kind != Kind::name && kind != Kind::literal; }
  // Only names and literals joined by `*`.
  bool is_product() const;
};

// The canonical text, without spaces: "H-K+1", "(H+1)//2", "C/2".
std::string text(const DimExpr& e);

// Operations on two literals become one literal; `/` that doesn't divide,
// division by zero and a result past 64 bits are left for `evaluate` to
// report.
DimExpr fold_literals(DimExpr e);

// Its value, given the names' sizes (nullopt for a name without one).
struct DimValue {
  enum class Status { ok, unknown, not_dividing, by_zero, overflow };
  Status status = Status::ok;
  std::int64_t value = 0;
  std::string detail;  // not_dividing: "7 / 2"; overflow: "4611686018427387904 * 2"
};
DimValue evaluate(const DimExpr& e,
                  const std::function<std::optional<std::int64_t>(const std::string&)>& size);

// A derived dim the program declares or a shape writes: its name (a `dim`
// line's, or the canonical text of a sum) and its expression over earlier
// dims, aliases substituted. Sized in order once the host has sized the rest.
struct DerivedDim {
  std::string name;
  DimExpr expr;
  std::uint32_t span_start = 0, span_end = 0;  // where it is written, for load's errors
};

}  // namespace ss::types
