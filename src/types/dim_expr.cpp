#include "types/dim_expr.hpp"

#include "types/size_arith.hpp"

namespace ss::types {

namespace {

int precedence(DimExpr::Kind k) {
  switch (k) {
    case DimExpr::Kind::add:
    case DimExpr::Kind::sub:
      return 1;
    case DimExpr::Kind::mul:
    case DimExpr::Kind::div:
    case DimExpr::Kind::floordiv:
      return 2;
    default:
      return 3;
  }
}

const char* spelling(DimExpr::Kind k) {
  switch (k) {
    case DimExpr::Kind::add:
      return "+";
    case DimExpr::Kind::sub:
      return "-";
    case DimExpr::Kind::mul:
      return "*";
    case DimExpr::Kind::div:
      return "/";
    case DimExpr::Kind::floordiv:
      return "//";
    default:
      return "";
  }
}

}  // namespace

bool DimExpr::is_product() const {
  if (kind == Kind::name || kind == Kind::literal) return true;
  return kind == Kind::mul && items[0].is_product() && items[1].is_product();
}

std::string text(const DimExpr& e) {
  if (e.kind == DimExpr::Kind::name) return e.name;
  if (e.kind == DimExpr::Kind::literal) return std::to_string(e.value);
  const int p = precedence(e.kind);
  // Left-associative: the right operand needs brackets at equal precedence
  // unless the operation is associative (a + (b + c) is written a+b+c only
  // when it was parsed so; keep the brackets to stay term for term).
  std::string l = text(e.items[0]), r = text(e.items[1]);
  if (precedence(e.items[0].kind) < p) l = "(" + l + ")";
  if (precedence(e.items[1].kind) <= p && e.items[1].is_op()) r = "(" + r + ")";
  return l + spelling(e.kind) + r;
}

DimExpr fold_literals(DimExpr e) {
  if (!e.is_op()) return e;
  for (auto& item : e.items) item = fold_literals(std::move(item));
  if (e.items[0].kind != DimExpr::Kind::literal || e.items[1].kind != DimExpr::Kind::literal)
    return e;
  // A result past 64 bits stays unfolded, for `evaluate` to report.
  const std::int64_t a = e.items[0].value, b = e.items[1].value;
  std::optional<std::int64_t> r;
  switch (e.kind) {
    case DimExpr::Kind::add:
      r = add_sizes(a, b);
      break;
    case DimExpr::Kind::sub:
      r = sub_sizes(a, b);
      break;
    case DimExpr::Kind::mul:
      r = mul_sizes(a, b);
      break;
    case DimExpr::Kind::div:
    case DimExpr::Kind::floordiv: {
      const DimValue v = evaluate(e, [](const std::string&) { return std::nullopt; });
      if (v.status == DimValue::Status::ok) r = v.value;
      break;
    }
    default:
      break;
  }
  return r ? DimExpr::literal(*r) : e;
}

DimValue evaluate(const DimExpr& e,
                  const std::function<std::optional<std::int64_t>(const std::string&)>& size) {
  if (e.kind == DimExpr::Kind::literal) return {DimValue::Status::ok, e.value, {}};
  if (e.kind == DimExpr::Kind::name) {
    const auto n = size(e.name);
    if (!n) return {DimValue::Status::unknown, 0, e.name};
    return {DimValue::Status::ok, *n, {}};
  }
  const DimValue a = evaluate(e.items[0], size);
  if (a.status != DimValue::Status::ok) return a;
  const DimValue b = evaluate(e.items[1], size);
  if (b.status != DimValue::Status::ok) return b;
  const std::int64_t x = a.value, y = b.value;
  const auto sized = [&](std::optional<std::int64_t> r, const char* op) -> DimValue {
    if (r) return {DimValue::Status::ok, *r, {}};
    return {DimValue::Status::overflow, 0, std::to_string(x) + op + std::to_string(y)};
  };
  switch (e.kind) {
    case DimExpr::Kind::add:
      return sized(add_sizes(x, y), " + ");
    case DimExpr::Kind::sub:
      return sized(sub_sizes(x, y), " - ");
    case DimExpr::Kind::mul:
      return sized(mul_sizes(x, y), " * ");
    case DimExpr::Kind::div:
    case DimExpr::Kind::floordiv: {
      const char* op = e.kind == DimExpr::Kind::div ? " / " : " // ";
      const std::string detail = std::to_string(x) + op + std::to_string(y);
      if (y == 0) return {DimValue::Status::by_zero, 0, detail};
      if (x == INT64_MIN && y == -1) return {DimValue::Status::overflow, 0, detail};
      if (e.kind == DimExpr::Kind::div && x % y != 0)
        return {DimValue::Status::not_dividing, 0, detail};
      const std::int64_t q = x / y;
      // Floor, as Python's //, for a negative operand.
      return {DimValue::Status::ok, (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q, {}};
    }
    default:
      return {DimValue::Status::unknown, 0, {}};
  }
}

}  // namespace ss::types
