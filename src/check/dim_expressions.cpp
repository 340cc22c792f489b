// Dims from dims (types/dim_expr.hpp): `dim H1 = H - K + 1`, and the same
// expressions in shapes (`[3 3 C/2 C]`). A product is the axis of its
// factors; a sum, a quotient or a floor is one factor named by its canonical
// text, sized from the dims when they are (and again when the host sizes
// them at load, api::apply_dims).
#include <algorithm>
#include <cctype>

#include "check/checker_impl.hpp"
#include "types/size_arith.hpp"

namespace ss::check {

namespace {

using types::DimExpr;

DimExpr::Kind kind_of(syntax::AxisExpr::Kind k) {
  switch (k) {
    case syntax::AxisExpr::Kind::add:
      return DimExpr::Kind::add;
    case syntax::AxisExpr::Kind::sub:
      return DimExpr::Kind::sub;
    case syntax::AxisExpr::Kind::mul:
      return DimExpr::Kind::mul;
    case syntax::AxisExpr::Kind::div:
      return DimExpr::Kind::div;
    case syntax::AxisExpr::Kind::floordiv:
      return DimExpr::Kind::floordiv;
    case syntax::AxisExpr::Kind::name:
      return DimExpr::Kind::name;
    case syntax::AxisExpr::Kind::literal:
      return DimExpr::Kind::literal;
  }
  return DimExpr::Kind::literal;
}

// The operands of a chain of `*`, in order.
void product_operands(const DimExpr& e, std::vector<const DimExpr*>& out) {
  if (e.kind == DimExpr::Kind::mul) {
    product_operands(e.items[0], out);
    product_operands(e.items[1], out);
  } else {
    out.push_back(&e);
  }
}

bool mentions(const DimExpr& e, const std::set<std::string>& names) {
  if (e.kind == DimExpr::Kind::name) return names.count(e.name) > 0;
  for (const auto& item : e.items)
    if (mentions(item, names)) return true;
  return false;
}

}  // namespace

std::optional<Axis> Checker::dim_axis(const std::string& name) const {
  if (const auto it = dim_aliases_.find(name); it != dim_aliases_.end()) return it->second.axis;
  if (dims_.count(name)) return Axis::dim(name);
  return std::nullopt;
}

std::optional<types::DimExpr> Checker::declared_dim(const std::string& name) const {
  if (const auto it = dim_aliases_.find(name); it != dim_aliases_.end()) return it->second.expr;
  if (dims_.count(name)) return DimExpr::named(name);
  return std::nullopt;
}

std::optional<types::DimExpr> Checker::dim_tree(const syntax::AxisExpr& a,
                                                std::set<std::string>& generic_names,
                                                std::set<std::string>* generics,
                                                bool allow_generic) {
  if (a.kind == syntax::AxisExpr::Kind::literal) {
    if (a.value <= 0) {
      r_.error(Code::E0403, a.span, "an axis of size " + std::to_string(a.value),
               "not a positive size")
          .help = "sizes in types are 1 or more";
      return std::nullopt;
    }
    return DimExpr::literal(a.value);
  }
  if (a.kind == syntax::AxisExpr::Kind::name) {
    if (local_dims_.count(a.name)) {  // a generic model's dim: bound at each instance
      generic_names.insert(a.name);
      return DimExpr::named(a.name);
    }
    if (auto dim = declared_dim(a.name)) return dim;
    const bool lower = std::islower(static_cast<unsigned char>(a.name[0])) != 0;
    if (lower && allow_generic) {
      if (generics) generics->insert(a.name);
      generic_names.insert(a.name);
      return DimExpr::named(a.name);
    }
    auto& d =
        r_.error(Code::E0401, a.span, "unknown dim `" + a.name + "`", "no `dim " + a.name + "`");
    d.help =
        lower ? "a generic axis (a lowercase name) can't appear here; declare a dim: `dim " +
                    a.name + " = ...`"
              : "declare it: `dim " + a.name + " = 4`, or use a lowercase name for a generic axis";
    return std::nullopt;
  }
  auto l = dim_tree(a.items[0], generic_names, generics, allow_generic);
  if (!l) return std::nullopt;
  auto r = dim_tree(a.items[1], generic_names, generics, allow_generic);
  if (!r) return std::nullopt;
  return DimExpr::op(kind_of(a.kind), std::move(*l), std::move(*r));
}

void Checker::report_overflow(const std::string& what, const std::string& how, Span span) {
  r_.error(Code::E0409, span, "`" + what + "` passes 2^63 - 1" + (how.empty() ? "" : ": " + how),
           "too large a size")
      .help = "sizes are 64-bit integers; no tensor has so many elements";
}

std::optional<Factor> Checker::derived_factor(const types::DimExpr& e, Span span,
                                              const std::set<std::string>& generic_names) {
  if (mentions(e, generic_names)) {
    r_.error(Code::E0408, span, "a generic axis in `" + types::text(e) + "`",
             "only a product may hold a generic axis")
        .help =
        "a generic axis's size is known only at run time, so it can be a factor (`b*D`) but not "
        "part of a sum or a quotient; declare a dim for the size";
    return std::nullopt;
  }
  const std::string name = types::text(e);
  if (!dims_.count(name)) {
    const auto v = types::evaluate(e, [&](const std::string& n) { return dims_.at(n).value; });
    std::optional<std::int64_t> value;
    if (v.status == types::DimValue::Status::not_dividing ||
        v.status == types::DimValue::Status::by_zero) {
      r_.error(Code::E0407, span,
               "`" + name + "` is " + v.detail +
                   (v.status == types::DimValue::Status::by_zero ? ", a division by zero"
                                                                 : ", which doesn't divide"),
               "not a whole size")
          .help = "`/` must divide exactly; write `//` to round down";
      return std::nullopt;
    }
    if (v.status == types::DimValue::Status::overflow) {
      report_overflow(name, v.detail, span);
      return std::nullopt;
    }
    if (v.status == types::DimValue::Status::ok) {
      if (v.value <= 0) {
        r_.error(Code::E0402, span, "`" + name + "` is " + std::to_string(v.value),
                 "not a positive size")
            .help = "a dim's size is 1 or more";
        return std::nullopt;
      }
      value = v.value;
    }
    dims_[name] = {value, span};
    typed_.derived_dims.push_back({name, e, span.begin, span.end});
  }
  return Factor{Factor::Kind::dim, name, 0};
}

std::optional<Axis> Checker::axis_of(const types::DimExpr& tree, Span span,
                                     const std::set<std::string>& generic_names) {
  const DimExpr e = types::fold_literals(tree);
  std::vector<const DimExpr*> operands;
  product_operands(e, operands);
  Axis out;
  for (const DimExpr* op : operands) {
    if (op->kind == DimExpr::Kind::literal) {
      if (op->value <= 0) {
        r_.error(Code::E0402, span,
                 "`" + types::text(tree) + "` has a factor " + std::to_string(op->value),
                 "not a positive size")
            .help = "sizes are 1 or more";
        return std::nullopt;
      }
      out.factors.push_back({Factor::Kind::literal, {}, op->value});
    } else if (op->kind == DimExpr::Kind::name) {
      out.factors.push_back(
          {generic_names.count(op->name) ? Factor::Kind::generic : Factor::Kind::dim, op->name, 0});
    } else {
      auto f = derived_factor(*op, span, generic_names);
      if (!f) return std::nullopt;
      out.factors.push_back(std::move(*f));
    }
  }
  // A product of literals is one literal.
  if (out.factors.size() > 1 &&
      std::all_of(out.factors.begin(), out.factors.end(),
                  [](const Factor& f) { return f.kind == Factor::Kind::literal; })) {
    std::optional<std::int64_t> n = 1;
    for (const auto& f : out.factors)
      if (n) n = types::mul_sizes(*n, f.value);
    if (!n) {
      report_overflow(types::text(tree), "", span);
      return std::nullopt;
    }
    return Axis::literal(*n);
  }
  // Sized from dims already sized, the product must fit too.
  if (!static_size(out) && sized_factors(out)) {
    report_overflow(types::text(tree), "the product of its factors' sizes", span);
    return std::nullopt;
  }
  return out;
}

std::optional<Axis> Checker::resolve_axis(const syntax::AxisExpr& a,
                                          std::set<std::string>* generics, bool allow_generic) {
  std::set<std::string> generic_names;
  auto tree = dim_tree(a, generic_names, generics, allow_generic);
  if (!tree) return std::nullopt;
  return axis_of(*tree, a.span, generic_names);
}

void Checker::declare_dims() {
  for (const auto& d : p_.dims) {
    if (!unique_item_name(d.name, d.name_span)) continue;
    if (!d.expr) {
      if (d.value && *d.value <= 0) {
        r_.error(Code::E0402, d.value_span,
                 "dim `" + d.name + "` has size " + std::to_string(*d.value), "not a positive size")
            .help = "a dim's size is 1 or more";
      }
      dims_[d.name] = {d.value, d.span};
      continue;
    }
    std::set<std::string> generic_names;
    auto tree = dim_tree(*d.expr, generic_names, nullptr, false);
    if (!tree) continue;
    auto axis = axis_of(*tree, d.value_span, generic_names);
    if (!axis) continue;
    const DimExpr folded = types::fold_literals(*tree);
    const auto v = types::evaluate(folded, [&](const std::string& n) { return dims_.at(n).value; });
    if (v.status == types::DimValue::Status::overflow) {
      report_overflow(d.name, v.detail, d.value_span);
      continue;
    }
    std::optional<std::int64_t> value;
    if (v.status == types::DimValue::Status::ok) value = v.value;
    if (value && *value <= 0) {
      r_.error(Code::E0402, d.value_span,
               "dim `" + d.name + "` = " + types::text(folded) + " is " + std::to_string(*value),
               "not a positive size")
          .help = "a dim's size is 1 or more";
      continue;
    }
    dim_aliases_[d.name] = {folded, *axis};
    dims_[d.name] = {value, d.span};
    typed_.derived_dims.push_back({d.name, folded, d.value_span.begin, d.value_span.end});
  }
}

}  // namespace ss::check
