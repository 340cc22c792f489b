// Reverse-mode differentiation: walk the graph backwards from the output,
// and for each node on a path from the parameters apply its operation's
// rule (`Rules::apply`, one case per operation), adding each input's share
// of the gradient into that input's adjoint.
#include "ir/autodiff.hpp"

#include <algorithm>
#include <set>

#include "ir/ops.hpp"

namespace ss::ir {
namespace {

using types::Axis;
using types::ElemKind;
using types::Factor;
using types::Type;

bool is_float(const Type& t) {
  return t.is_tensor() && t.elem.is_float();
}

// A float tensor of the given axes: the type of every gradient.
Type float_type(std::vector<Axis> axes) {
  return Type::tensor(std::move(axes), types::Elem{ElemKind::f32, {}, false});
}

class Rules {
 public:
  Rules(Graph& g, const DimSizes& dims) : g_(g), dims_(dims) {}

  // The adjoint of every node so far; -1 for none.
  std::vector<int> adjoint;

  // Adds `contribution` to the adjoint of node `x`.
  void accumulate(int x, int contribution) {
    int& a = adjoint[static_cast<std::size_t>(x)];
    a = a < 0 ? contribution : binary(Binary::add, a, contribution, type(x));
  }

  // The shares of node `i`'s gradient `gy` its inputs get: one per input,
  // -1 for an input with none.
  std::vector<int> apply(int i, int gy) {
    const Node n = node(i);  // a copy: adding nodes moves the vector
    span_ = n.span;
    const int x = n.in.empty() ? -1 : n.in[0];
    switch (n.op) {
      case Op::input:
      case Op::constant:
      case Op::size:
      case Op::fill:
      case Op::literal:
      case Op::arange:
      case Op::random:
      case Op::argmax:
      case Op::argsort:
        return {};
      case Op::all_reduce:  // a replicated result: each part's gradient is the result's
        return {gy};
      case Op::unary:
        return {unary_rule(static_cast<Unary>(n.sub), x, i, gy)};
      case Op::binary:
        return binary_rule(static_cast<Binary>(n.sub), n, i, gy);
      case Op::where:
        return {-1, unbroadcast(where(n.in[0], gy, zero(i), type(i)), i, n.in[1]),
                unbroadcast(where(n.in[0], zero(i), gy, type(i)), i, n.in[2])};
      case Op::cast: {
        if (!is_float(type(x))) return {};
        Node c{.op = Op::cast, .in = {gy}, .type = float_type(type(x).axes)};
        return {add(c)};
      }
      case Op::matmul:
        return matmul_rule(n, gy);
      case Op::reduce:
        return {reduce_rule(n, i, gy)};
      case Op::softmax: {  // y (g - sum(g y))
        const int s = reduce(Reduce::sum, mul(gy, i), n.axes, true);
        return {mul(i, binary(Binary::sub, gy, s, type(i)))};
      }
      case Op::log_softmax: {  // g - exp(y) sum(g)
        const int s = reduce(Reduce::sum, gy, n.axes, true);
        return {binary(Binary::sub, gy, mul(unary(Unary::exp, i), s), type(i))};
      }
      case Op::cross_entropy:
        return {cross_entropy_rule(n, gy), -1};
      case Op::causal: {  // the masked entries get nothing
        Node masked{.op = Op::causal, .in = {zero(i)}, .type = type(i)};
        const int kept = compare(Binary::eq, add(masked), constant(0), type(i));
        return {where(kept, gy, zero(i), type(i))};
      }
      case Op::gather: {
        Node s{.op = Op::scatter_add, .in = {gy, n.in[1]}, .type = float_type(type(x).axes)};
        return {add(s), -1};
      }
      case Op::index:
      case Op::slice: {
        Node p{.op = Op::place,
               .in = {gy, x},
               .axes = n.axes,
               .keep = n.keep,
               .number = n.number,
               .ints = n.ints,
               .type = float_type(type(x).axes)};
        return {add(p)};
      }
      case Op::pad: {
        Node s{.op = Op::slice,
               .in = {gy},
               .axes = n.axes,
               .keep = true,
               .ints = {n.ints[0], n.ints[1]},
               .type = float_type(type(x).axes)};
        return {add(s)};
      }
      case Op::concat:
        return concat_rule(n, gy);
      case Op::stack: {
        std::vector<int> out;
        for (std::size_t k = 0; k < n.in.size(); ++k) {
          Node t{.op = Op::index,
                 .in = {gy},
                 .axes = {0},
                 .number = static_cast<double>(k),
                 .type = float_type(type(n.in[k]).axes)};
          out.push_back(add(t));
        }
        return out;
      }
      case Op::sort: {  // each value's gradient goes back to where it came from
        Node order{.op = Op::argsort, .in = {x}, .axes = n.axes, .type = int_type(x)};
        Node inverse{.op = Op::argsort, .in = {add(order)}, .axes = n.axes, .type = int_type(x)};
        Node t{.op = Op::take_along, .in = {gy, add(inverse)}, .axes = n.axes, .type = type(i)};
        return {add(t)};
      }
      case Op::layer_norm:
      case Op::rms_norm:
        return {norm_rule(n, i, gy)};
      case Op::einsum:
        return einsum_rule(n, gy);
      case Op::einops:
        return {einops_rule(n, i, gy)};
      case Op::window: {  // each window element's gradient, added back at its place
        Node fold{.op = Op::window_fold,
                  .in = {gy, x},
                  .axes = n.axes,
                  .ints = n.ints,
                  .type = float_type(type(x).axes)};
        return {add(fold)};
      }
      case Op::window_fold: {  // linear: its adjoint is the window (with zero padding)
        Node w{.op = Op::window,
               .in = {gy},
               .axes = n.axes,
               .ints = n.ints,
               .type = float_type(type(x).axes)};
        return {add(w), -1};
      }
      case Op::scatter_add:
      case Op::place:
      case Op::take_along:
        throw NotDifferentiable("a gradient of a gradient", span_);
    }
    throw NotDifferentiable(std::string("the gradient of `") + op_name(n.op) + "`", span_);
  }

 private:
  const Node& node(int i) const { return g_.nodes[static_cast<std::size_t>(i)]; }
  // A copy: adding nodes moves the vector the node's type lives in.
  Type type(int i) const { return node(i).type; }
  Type int_type(int i) const {
    return Type::tensor(type(i).axes, types::Elem{ElemKind::i32, {}, false});
  }

  int add(Node n) {
    n.span = span_;
    return g_.add(std::move(n));
  }

  int constant(double value) {
    return add({.op = Op::constant, .number = value, .type = float_type({})});
  }

  int fill(double value, const Type& like) {
    return add({.op = Op::fill, .number = value, .type = float_type(like.axes)});
  }
  int zero(int like) { return fill(0, type(like)); }

  int unary(Unary op, int x) {
    return add({.op = Op::unary,
                .in = {x},
                .sub = static_cast<int>(op),
                .type = float_type(type(x).axes)});
  }

  int binary(Binary op, int a, int b, const Type& t) {
    return add(
        {.op = Op::binary, .in = {a, b}, .sub = static_cast<int>(op), .type = float_type(t.axes)});
  }

  // The wider of two operands' types, for their elementwise product.
  Type wider(int a, int b) const {
    return type(a).axes.size() >= type(b).axes.size() ? type(a) : type(b);
  }
  int mul(int a, int b) { return binary(Binary::mul, a, b, wider(a, b)); }

  int compare(Binary op, int a, int b, const Type& t) {
    return add({.op = Op::binary,
                .in = {a, b},
                .sub = static_cast<int>(op),
                .type = Type::tensor(t.axes, types::Elem{ElemKind::boolean, {}, false})});
  }

  int where(int c, int a, int b, const Type& t) {
    return add({.op = Op::where, .in = {c, a, b}, .type = float_type(t.axes)});
  }

  // A reduction's type: the axes removed, or kept as size 1.
  int reduce(Reduce op, int x, const std::vector<std::int64_t>& axes, bool keep) {
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

  std::vector<std::int64_t> all_axes(int x) const {
    std::vector<std::int64_t> axes;
    for (std::size_t k = 0; k < type(x).axes.size(); ++k)
      axes.push_back(static_cast<std::int64_t>(k));
    return axes;
  }

  // The number of elements of a tensor of `t`'s type, as a scalar node,
  // counted at run time (the sizes may be generic).
  int count(const Type& t) {
    const int ones = fill(1, t);
    return t.axes.empty() ? ones : reduce(Reduce::sum, ones, all_axes(ones), false);
  }

  // `small`'s elements over `big`'s: 1/N for a mean over N.
  int ratio(const Type& small, const Type& big) {
    return binary(Binary::div, count(small), count(big), float_type({}));
  }

  // A gradient `g` of node `out`'s shape summed down to input `x`'s shape:
  // the leading axes broadcasting added, and the size-1 axes it stretched.
  int unbroadcast(int g, int out, int x) {
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

  int unary_rule(Unary op, int x, int y, int g) {
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
      case Unary::gelu_grad:
        throw NotDifferentiable("a gradient of a gradient", span_);
      case Unary::logical_not:
        return -1;
    }
    return -1;
  }

  std::vector<int> binary_rule(Binary op, const Node& n, int y, int g) {
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

  // einsum by generated names: a [A.. k] @ b [k B..] = out [A.. B..].
  std::vector<int> matmul_rule(const Node& n, int g) {
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

  // g with the reduced axes back, as size 1, when the reduction dropped them.
  int kept(const Node& n, int g) {
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

  // g (keep-shaped) stretched to x's shape.
  int expand(int g, int x) { return binary(Binary::add, zero(x), g, type(x)); }

  int reduce_rule(const Node& n, int y, int g) {
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

  // mean over the other positions of logsumexp - logits[label]:
  // (softmax - one_hot(label)) g / M.
  int cross_entropy_rule(const Node& n, int g) {
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

  int norm_rule(const Node& n, int y, int g) {
    const int x = n.in[0];
    const Type& t = type(x);
    const int eps = constant(1e-5);
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

  std::optional<std::int64_t> static_size(const Axis& axis) const {
    std::int64_t n = 1;
    for (const auto& f : axis.factors) {
      if (f.kind == Factor::Kind::literal) {
        n *= f.value;
      } else if (f.kind == Factor::Kind::dim) {
        const auto it = dims_.find(f.name);
        if (it == dims_.end() || !it->second) return std::nullopt;
        n *= *it->second;
      } else {
        return std::nullopt;
      }
    }
    return n;
  }

  std::vector<int> concat_rule(const Node& n, int g) {
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

  // Each input's gradient: the product of the output's gradient, the other
  // inputs and ones shaped like it (so names only it has survive), summed
  // to its names.
  std::vector<int> einsum_rule(const Node& n, int g) {
    std::vector<int> out;
    for (std::size_t t = 0; t < n.in.size(); ++t) {
      if (!is_float(type(n.in[t]))) {
        out.push_back(-1);
        continue;
      }
      std::vector<int> in = {g};
      std::vector<std::vector<std::vector<std::string>>> names = {n.groups_out};
      for (std::size_t o = 0; o < n.in.size(); ++o) {
        if (o == t) continue;
        in.push_back(n.in[o]);
        names.push_back(n.groups_in[o]);
      }
      in.push_back(zero(n.in[t]));
      node_mut(in.back()).number = 1;  // ones
      names.push_back(n.groups_in[t]);
      out.push_back(add({.op = Op::einsum,
                         .in = in,
                         .groups_in = names,
                         .groups_out = n.groups_in[t],
                         .type = float_type(type(n.in[t]).axes)}));
    }
    return out;
  }

  // The pattern run backwards: rearrange's inverse, repeat's is a sum, a
  // sum's is a repeat (a mean's scaled); a max's or min's gradient is shared
  // among the elements that reach the extreme, as `max(x, over=...)`'s is.
  int einops_rule(const Node& n, int y, int g) {
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

  Node& node_mut(int i) { return g_.nodes[static_cast<std::size_t>(i)]; }

  Graph& g_;
  const DimSizes& dims_;
  diag::Span span_;
};

}  // namespace

std::vector<int> append_gradients(Graph& g, int output, const std::vector<int>& wrt,
                                  const DimSizes& dims) {
  const int original = static_cast<int>(g.nodes.size());
  // The nodes on a path from some wrt to the output: reached from wrt going
  // forward, and reaching the output, through float values only.
  std::vector<bool> from_wrt(static_cast<std::size_t>(original), false);
  for (const int w : wrt) from_wrt[static_cast<std::size_t>(w)] = true;
  for (int i = 0; i < original; ++i) {
    const Node& n = g.nodes[static_cast<std::size_t>(i)];
    if (!is_float(n.type)) continue;
    for (const int x : n.in)
      if (from_wrt[static_cast<std::size_t>(x)]) from_wrt[static_cast<std::size_t>(i)] = true;
  }
  std::vector<bool> to_output(static_cast<std::size_t>(original), false);
  to_output[static_cast<std::size_t>(output)] = true;
  for (int i = output; i >= 0; --i) {
    if (!to_output[static_cast<std::size_t>(i)]) continue;
    for (const int x : g.nodes[static_cast<std::size_t>(i)].in)
      to_output[static_cast<std::size_t>(x)] = true;
  }
  const auto needed = [&](int i) {
    return from_wrt[static_cast<std::size_t>(i)] && to_output[static_cast<std::size_t>(i)];
  };

  Rules rules(g, dims);
  rules.adjoint.assign(static_cast<std::size_t>(original), -1);
  if (needed(output)) {
    Node one{.op = Op::constant, .number = 1, .type = float_type({})};
    one.span = g.nodes[static_cast<std::size_t>(output)].span;
    rules.adjoint[static_cast<std::size_t>(output)] = g.add(std::move(one));
  }
  for (int i = output; i >= 0; --i) {
    const int gy = rules.adjoint[static_cast<std::size_t>(i)];
    if (gy < 0 || !needed(i)) continue;
    const std::vector<int> ins = g.nodes[static_cast<std::size_t>(i)].in;
    const std::vector<int> shares = rules.apply(i, gy);
    for (std::size_t k = 0; k < shares.size() && k < ins.size(); ++k)
      if (shares[k] >= 0 && needed(ins[k])) rules.accumulate(ins[k], shares[k]);
  }
  std::vector<int> grads;
  for (const int w : wrt) grads.push_back(rules.adjoint[static_cast<std::size_t>(w)]);
  return grads;
}

}  // namespace ss::ir
