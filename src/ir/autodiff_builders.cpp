#include "ir/autodiff_rules.hpp"

namespace ss::ir::gradient {

Type Rules::int_type(int i) const {
  return Type::tensor(type(i).axes, types::Elem{ElemKind::i32, {}, false});
}

int Rules::add(Node n) {
  n.span = span_;
  return g_.add(std::move(n));
}

int Rules::constant(double value) {
  return add({.op = Op::constant, .number = value, .type = float_type({})});
}

int Rules::fill(double value, const Type& like) {
  return add({.op = Op::fill, .number = value, .type = float_type(like.axes)});
}

int Rules::unary(Unary op, int x) {
  return add(
      {.op = Op::unary, .in = {x}, .sub = static_cast<int>(op), .type = float_type(type(x).axes)});
}

int Rules::binary(Binary op, int a, int b, const Type& t) {
  return add(
      {.op = Op::binary, .in = {a, b}, .sub = static_cast<int>(op), .type = float_type(t.axes)});
}

Type Rules::wider(int a, int b) const {
  return type(a).axes.size() >= type(b).axes.size() ? type(a) : type(b);
}

int Rules::compare(Binary op, int a, int b, const Type& t) {
  return add({.op = Op::binary,
              .in = {a, b},
              .sub = static_cast<int>(op),
              .type = Type::tensor(t.axes, types::Elem{ElemKind::boolean, {}, false})});
}

int Rules::where(int c, int a, int b, const Type& t) {
  return add({.op = Op::where, .in = {c, a, b}, .type = float_type(t.axes)});
}

int Rules::reduce(Reduce op, int x, const std::vector<std::int64_t>& axes, bool keep) {
  std::vector<Axis> out;
  const auto in = type(x).axes;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const bool reduced =
        std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(k)) != axes.end();
    if (!reduced)
      out.push_back(in[k]);
    else if (keep)
      out.push_back(Axis::literal(1));
  }
  return add({.op = Op::reduce,
              .in = {x},
              .sub = static_cast<int>(op),
              .axes = axes,
              .keep = keep,
              .type = float_type(out)});
}

std::vector<std::int64_t> Rules::all_axes(int x) const {
  std::vector<std::int64_t> axes;
  for (std::size_t k = 0; k < type(x).axes.size(); ++k)
    axes.push_back(static_cast<std::int64_t>(k));
  return axes;
}

int Rules::count(const Type& t) {
  const int ones = fill(1, t);
  return t.axes.empty() ? ones : reduce(Reduce::sum, ones, all_axes(ones), false);
}

int Rules::ratio(const Type& small, const Type& big) {
  return binary(Binary::div, count(small), count(big), float_type({}));
}

int Rules::unbroadcast(int g, int out, int x) {
  const auto from = type(out).axes;
  const auto to = type(x).axes;
  const std::size_t extra = from.size() - std::min(from.size(), to.size());
  std::vector<std::int64_t> stretched;
  for (std::size_t k = 0; k < to.size(); ++k)
    if (to[k].is_literal(1) && !from[extra + k].is_literal(1))
      stretched.push_back(static_cast<std::int64_t>(extra + k));
  if (!stretched.empty()) g = reduce(Reduce::sum, g, stretched, true);
  if (extra > 0) {
    std::vector<std::int64_t> leading;
    for (std::size_t k = 0; k < extra; ++k) leading.push_back(static_cast<std::int64_t>(k));
    g = reduce(Reduce::sum, g, leading, false);
  }
  return g;
}

}  // namespace ss::ir::gradient
