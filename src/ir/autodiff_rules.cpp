#include "ir/autodiff_rules.hpp"

#include <set>

#include "ir/fused.hpp"

namespace ss::ir::gradient {

int Rules::unary_rule(Unary op, int x, int y, int g) {
  switch (op) {
    case Unary::neg:
      return unary(Unary::neg, g);
    case Unary::exp:
      return mul(g, y);
    case Unary::log:
      return binary(Binary::div, g, x, type(y));
    case Unary::sqrt:
      return binary(Binary::div, g, mul(constant(2), y), type(y));
    case Unary::abs: {
      const int positive = compare(Binary::gt, x, constant(0), type(x));
      const int negative = compare(Binary::lt, x, constant(0), type(x));
      return where(positive, g, where(negative, unary(Unary::neg, g), zero(y), type(y)), type(y));
    }
    case Unary::tanh:  // 1 - y^2
      return mul(g, binary(Binary::sub, constant(1), mul(y, y), type(y)));
    case Unary::sigmoid:  // y (1 - y)
      return mul(g, mul(y, binary(Binary::sub, constant(1), y, type(y))));
    case Unary::relu:
      return where(compare(Binary::gt, x, constant(0), type(x)), g, zero(y), type(y));
    case Unary::gelu:
      return mul(g, unary(Unary::gelu_grad, x));
    case Unary::erf:  // 2 / sqrt(pi) exp(-x^2)
      return mul(g, mul(constant(1.1283791670955126),
                        unary(Unary::exp, unary(Unary::neg, mul(x, x)))));
    case Unary::sin:
      return mul(g, unary(Unary::cos, x));
    case Unary::cos:
      return unary(Unary::neg, mul(g, unary(Unary::sin, x)));
    case Unary::tan:  // 1 + y^2
      return mul(g, binary(Binary::add, constant(1), mul(y, y), type(y)));
    case Unary::asin:  // 1 / sqrt(1 - x^2)
      return binary(Binary::div, g, unary(Unary::sqrt, binary(Binary::sub, constant(1), mul(x, x), type(y))), type(y));
    case Unary::acos:
      return unary(Unary::neg, binary(Binary::div, g,
                                      unary(Unary::sqrt, binary(Binary::sub, constant(1), mul(x, x), type(y))), type(y)));
    case Unary::atan:  // 1 / (1 + x^2)
      return binary(Binary::div, g, binary(Binary::add, constant(1), mul(x, x), type(y)), type(y));
    case Unary::gelu_grad:
      throw NotDifferentiable("a gradient of a gradient", span_);
    case Unary::logical_not:
      return -1;
  }
  return -1;
}

std::vector<int> Rules::binary_rule(Binary op, const Node& n, int y, int g) {
  const int a = n.in[0], b = n.in[1];
  const Type& t = type(y);
  int ga = -1, gb = -1;
  switch (op) {
    case Binary::add:
      ga = g, gb = g;
      break;
    case Binary::sub:
      ga = g, gb = unary(Unary::neg, g);
      break;
    case Binary::mul:
      ga = mul(g, b), gb = mul(g, a);
      break;
    case Binary::div:  // a/b: g/b, and -g y / b
      ga = binary(Binary::div, g, b, t);
      gb = unary(Unary::neg, binary(Binary::div, mul(g, y), b, t));
      break;
    case Binary::pow: {  // a^b: g b a^(b-1), and g y log(a)
      const int lower = binary(Binary::pow, a, binary(Binary::sub, b, constant(1), type(b)), t);
      ga = mul(g, mul(b, lower));
      gb = mul(g, mul(y, unary(Unary::log, a)));
      break;
    }
    case Binary::maximum:
    case Binary::minimum: {  // to the winner; a tie shares it, as PyTorch does
      const Binary wins = op == Binary::maximum ? Binary::gt : Binary::lt;
      const Binary loses = op == Binary::maximum ? Binary::lt : Binary::gt;
      const int half = mul(g, constant(0.5));
      const int tie = compare(Binary::eq, a, b, t);
      ga = where(compare(wins, a, b, t), g, where(tie, half, zero(y), t), t);
      gb = where(compare(loses, a, b, t), g, where(tie, half, zero(y), t), t);
      break;
    }
    case Binary::mod:  // a - floor(a/b) b
      ga = g;
      gb = unary(Unary::neg, mul(g, binary(Binary::floordiv, a, b, t)));
      break;
    default:  // floordiv, comparisons and logic: piecewise constant or not float
      return {};
  }
  return {is_float(type(a)) ? unbroadcast(ga, y, a) : -1,
          is_float(type(b)) ? unbroadcast(gb, y, b) : -1};
}

std::vector<int> Rules::matmul_rule(const Node& n, int g) {
  const std::size_t ra = type(n.in[0]).axes.size(), rb = type(n.in[1]).axes.size();
  std::vector<std::vector<std::string>> a_names, b_names, out_names;
  for (std::size_t k = 0; k + 1 < ra; ++k) a_names.push_back({"a" + std::to_string(k)});
  out_names = a_names;
  a_names.push_back({"k"});
  b_names.push_back({"k"});
  for (std::size_t k = 1; k < rb; ++k) {
    b_names.push_back({"b" + std::to_string(k)});
    out_names.push_back({"b" + std::to_string(k)});
  }
  const auto einsum = [&](std::vector<int> in,
                          std::vector<std::vector<std::vector<std::string>>> names,
                          std::vector<std::vector<std::string>> out, const Type& t) {
    return add({.op = Op::einsum,
                .in = std::move(in),
                .groups_in = std::move(names),
                .groups_out = std::move(out),
                .type = float_type(t.axes)});
  };
  return {einsum({g, n.in[1]}, {out_names, b_names}, a_names, type(n.in[0])),
          einsum({n.in[0], g}, {a_names, out_names}, b_names, type(n.in[1]))};
}

int Rules::kept(const Node& n, int g) {
  if (n.keep) return g;
  const auto in = type(n.in[0]).axes;
  std::vector<std::vector<std::string>> from, to;
  std::vector<Axis> axes;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const bool reduced =
        std::find(n.axes.begin(), n.axes.end(), static_cast<std::int64_t>(k)) != n.axes.end();
    const std::string name = "x" + std::to_string(k);
    if (reduced) {
      to.emplace_back();
      axes.push_back(Axis::literal(1));
    } else {
      from.push_back({name});
      to.push_back({name});
      axes.push_back(in[k]);
    }
  }
  return add({.op = Op::einops,
              .in = {g},
              .groups_in = {from},
              .groups_out = to,
              .type = float_type(axes)});
}

int Rules::reduce_rule(const Node& n, int y, int g) {
  const int x = n.in[0];
  if (!is_float(type(x))) return -1;
  const int gk = kept(n, g);
  const Type& tx = type(x);
  switch (static_cast<Reduce>(n.sub)) {
    case Reduce::sum:
      return expand(gk, x);
    case Reduce::mean:
      return expand(mul(gk, ratio(type(y), tx)), x);
    case Reduce::max:
    case Reduce::min: {  // shared among the elements that reach the extreme
      const int hit = compare(Binary::eq, x, kept(n, y), tx);
      const int hits = reduce(Reduce::sum, where(hit, fill(1, tx), zero(x), tx), n.axes, true);
      return where(hit, expand(binary(Binary::div, gk, hits, type(hits)), x), zero(x), tx);
    }
    case Reduce::logsumexp:
      return mul(gk, unary(Unary::exp, binary(Binary::sub, x, kept(n, y), tx)));
    case Reduce::var:
    case Reduce::std: {
      const int centred = binary(Binary::sub, x, reduce(Reduce::mean, x, n.axes, true), tx);
      int scale = mul(gk, ratio(type(y), tx));  // var: 2 (x - mean) / N
      scale = static_cast<Reduce>(n.sub) == Reduce::var
                  ? mul(scale, constant(2))
                  : binary(Binary::div, scale, kept(n, y), type(scale));  // std: / y
      return mul(centred, scale);
    }
  }
  return -1;
}

int Rules::cross_entropy_rule(const Node& n, int g) {
  const int logits = n.in[0], labels = n.in[1];
  const Type& tl = type(logits);
  const auto axis = static_cast<std::size_t>(n.axes[0]);
  const int p =
      add({.op = Op::softmax, .in = {logits}, .axes = n.axes, .type = float_type(tl.axes)});
  // The labels with the class axis back (size 1), and the classes 0..C-1
  // along that axis (size 1 elsewhere): equal where the label is.
  std::vector<std::vector<std::string>> from, with_axis, classes_at;
  std::vector<Axis> label_axes, class_axes;
  for (std::size_t k = 0, j = 0; k < tl.axes.size(); ++k) {
    if (k == axis) {
      with_axis.emplace_back();
      classes_at.push_back({"c"});
      label_axes.push_back(Axis::literal(1));
      class_axes.push_back(tl.axes[k]);
      continue;
    }
    const std::string name = "l" + std::to_string(j++);
    from.push_back({name});
    with_axis.push_back({name});
    classes_at.emplace_back();
    label_axes.push_back(tl.axes[k]);
    class_axes.push_back(Axis::literal(1));
  }
  const int l = add({.op = Op::einops,
                     .in = {labels},
                     .groups_in = {from},
                     .groups_out = with_axis,
                     .type = Type::tensor(label_axes, type(labels).elem)});
  const int range =
      add({.op = Op::arange,
           .type = Type::tensor({tl.axes[axis]}, types::Elem{ElemKind::i32, {}, false})});
  const int c = add({.op = Op::einops,
                     .in = {range},
                     .groups_in = {{{"c"}}},
                     .groups_out = classes_at,
                     .type = Type::tensor(class_axes, type(range).elem)});
  const int one_hot = where(compare(Binary::eq, l, c, tl), fill(1, tl), zero(logits), tl);
  const int scale = mul(g, ratio(float_type({}), type(labels)));
  return mul(binary(Binary::sub, p, one_hot, tl), scale);
}

int Rules::norm_rule(const Node& n, int y, int g) {
  const int x = n.in[0];
  const Type& t = type(x);
  const int eps = constant(n.number);
  const int second = n.op == Op::layer_norm ? reduce(Reduce::var, x, n.axes, true)
                                            : reduce(Reduce::mean, mul(x, x), n.axes, true);
  const Type& tk = type(second);
  const int inverse = binary(Binary::div, constant(1),
                             unary(Unary::sqrt, binary(Binary::add, second, eps, tk)), tk);
  const int gy_mean = reduce(Reduce::mean, mul(g, y), n.axes, true);
  int inner = binary(Binary::sub, g, mul(y, gy_mean), t);  // rms: g - y mean(g y)
  if (n.op == Op::layer_norm)                              // layer: also minus mean(g)
    inner = binary(Binary::sub, inner, reduce(Reduce::mean, g, n.axes, true), t);
  return mul(inner, inverse);
}

std::optional<std::int64_t> Rules::static_size(const Axis& axis) const {
  return types::static_size(axis, dims_);
}

std::vector<int> Rules::concat_rule(const Node& n, int g) {
  std::vector<int> out;
  std::int64_t offset = 0;
  const auto axis = static_cast<std::size_t>(n.axes[0]);
  for (const int x : n.in) {
    const auto size = static_size(type(x).axes.at(axis));
    if (!size) throw NotDifferentiable("the gradient of `concat` along a generic axis", span_);
    out.push_back(add({.op = Op::slice,
                       .in = {g},
                       .axes = n.axes,
                       .ints = {offset, offset + *size},
                       .type = float_type(type(x).axes)}));
    offset += *size;
  }
  return out;
}

std::vector<int> Rules::einsum_rule(const Node& n, int g) {
  std::vector<int> out;
  for (std::size_t t = 0; t < n.in.size(); ++t) {
    if (!is_float(type(n.in[t])) || !wanted(n.in[t])) {  // a conv's image: no share built
      out.push_back(-1);
      continue;
    }
    std::vector<int> in = {g};
    std::vector<std::vector<std::vector<std::string>>> names = {n.groups_out};
    std::set<std::string> seen;
    for (const auto& group : n.groups_out) seen.insert(group.begin(), group.end());
    for (std::size_t o = 0; o < n.in.size(); ++o) {
      if (o == t) continue;
      in.push_back(n.in[o]);
      names.push_back(n.groups_in[o]);
      for (const auto& group : n.groups_in[o]) seen.insert(group.begin(), group.end());
    }
    // A tensor of ones gives the sizes of the names only input t has (its
    // summed-away axes); where the others name them all, it would only
    // multiply by 1 (and keep the product off the GEMM).
    bool own = false;
    for (const auto& group : n.groups_in[t])
      for (const auto& name : group) own = own || !seen.count(name);
    if (own) {
      in.push_back(zero(n.in[t]));
      node_mut(in.back()).number = 1;  // ones
      names.push_back(n.groups_in[t]);
    }
    out.push_back(add({.op = Op::einsum,
                       .in = in,
                       .groups_in = names,
                       .groups_out = n.groups_in[t],
                       .type = float_type(type(n.in[t]).axes)}));
  }
  return out;
}

int Rules::einops_rule(const Node& n, int y, int g) {
  const int x = n.in[0];
  if (!is_float(type(x))) return -1;
  std::set<std::string> in_names, out_names;
  for (const auto& group : n.groups_in[0]) in_names.insert(group.begin(), group.end());
  for (const auto& group : n.groups_out) out_names.insert(group.begin(), group.end());
  bool repeated = false;
  for (const auto& name : out_names) repeated = repeated || !in_names.count(name);
  for (const auto& name : in_names)
    if (!out_names.count(name)) {  // reduced: the inverse repeats it, so needs its size
      const auto it = n.sizes.find(name);
      if (it == n.sizes.end() || it->second.factors.empty() ||
          it->second.factors[0].kind == Factor::Kind::opaque)
        throw NotDifferentiable("the gradient of a `reduce` whose axis size isn't known", span_);
    }
  const auto backwards = [&](int v) {
    return add({.op = Op::einops,
                .in = {v},
                .name = repeated ? "sum" : "",
                .groups_in = {n.groups_out},
                .groups_out = n.groups_in[0],
                .sizes = n.sizes,
                .type = float_type(type(x).axes)});
  };
  if (n.name == "max" || n.name == "min") {
    if (repeated)
      throw NotDifferentiable(
          "the gradient of a `reduce` with `" + n.name + "` that also repeats an axis", span_);
    const Type& tx = type(x);
    const int hit = compare(Binary::eq, x, backwards(y), tx);
    const int hits = add({.op = Op::einops,
                          .in = {where(hit, fill(1, tx), zero(x), tx)},
                          .name = "sum",
                          .groups_in = n.groups_in,
                          .groups_out = n.groups_out,
                          .sizes = n.sizes,
                          .type = float_type(type(y).axes)});
    return where(hit, backwards(binary(Binary::div, g, hits, type(y))), zero(x), tx);
  }
  int gx = backwards(g);
  if (n.name == "mean") gx = mul(gx, ratio(type(y), type(x)));
  return gx;
}

std::vector<int> Rules::fused_rule(const Node& n, int g) {
  const auto fused = fused_gradient(n.op);
  const Type x = type(n.in[0]);
  const bool stacked = fused->inputs > 1;
  std::vector<Axis> axes = x.axes;
  if (stacked) axes.insert(axes.begin(), Axis::literal(static_cast<std::int64_t>(fused->inputs)));
  Node grad = n;
  grad.op = fused->op;
  grad.in.push_back(g);
  grad.type = float_type(axes);
  grad.body = std::make_shared<const Graph>(gradient_body(n, fused->inputs, dims_));
  const int parts = add(std::move(grad));
  if (!stacked) return {parts};
  std::vector<int> shares;
  for (std::size_t k = 0; k < fused->inputs; ++k)
    shares.push_back(wanted(n.in[k]) ? add({.op = Op::index,
                                            .in = {parts},
                                            .axes = {0},
                                            .number = static_cast<double>(k),
                                            .type = float_type(x.axes)})
                                     : -1);
  return shares;  // a scale after them gets none
}

}  // namespace ss::ir::gradient
