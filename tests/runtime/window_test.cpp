// The `window` primitive (a strided, dilated, padded sliding-window view,
// for convolution and pooling) and its fold, on the reference and the fast
// executor, forward and gradient: against loops written here from the
// definition, against finite differences, and against each other bit for
// bit; on several devices it splits away from the batch axis.
#include <doctest/doctest.h>

#include <array>
#include <cmath>

#include "ir/attributes.hpp"
#include "ir/autodiff.hpp"
#include "ir/distribute.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "runtime/reference/ops.hpp"
#include "support/fast_executor.hpp"
#include "support/paths.hpp"

namespace {

using ss::ir::Graph;
using ss::ir::Node;
using ss::ir::Op;
using ss::runtime::DType;
using ss::runtime::Shape;
using ss::runtime::Tensor;
using ss::types::Axis;
using ss::types::Type;

Type f32(const Shape& shape) {
  std::vector<Axis> axes;
  for (const auto n : shape) axes.push_back(Axis::literal(n));
  return Type::tensor(std::move(axes), ss::types::Elem{ss::types::ElemKind::f32, {}, false});
}

// window's attributes: per axis {size, stride, dilation, before, after}.
struct Spec {
  std::vector<std::int64_t> axes;
  std::vector<std::array<std::int64_t, 5>> per_axis;
  double value = 0;
};

Node window_node(int input, const Shape& shape, const Spec& s) {
  Node n{.op = Op::window, .in = {input}, .axes = s.axes, .number = s.value};
  for (const auto& a : s.per_axis) n.ints.insert(n.ints.end(), a.begin(), a.end());
  n.type = f32(ss::ir::window_of(n).shape_of(shape));
  return n;
}

Tensor values(const Shape& shape, double phase) {
  Tensor t = Tensor::zeros(DType::f32, shape);
  for (std::int64_t k = 0; k < t.size(); ++k)
    t.set(k, std::sin(0.37 * static_cast<double>(k) + phase) * 1.5);
  return t;
}

// x's window, element by element from the definition: out[.., o, .., j] =
// x[.., o * stride + j * dilation - before, ..], the padding outside.
std::vector<double> by_definition(const Tensor& x, const Spec& s) {
  Node n = window_node(0, x.shape(), s);
  const auto w = ss::ir::window_of(n);
  const Shape out = w.shape_of(x.shape());
  std::vector<double> result;
  std::vector<std::int64_t> index(out.size(), 0);
  for (std::int64_t flat = 0; flat < ss::runtime::element_count(out); ++flat) {
    std::vector<std::int64_t> at(index.begin(), index.begin() + x.rank());
    bool inside = true;
    for (std::size_t k = 0; k < w.axes.size(); ++k) {
      const auto& a = w.axes[k];
      const std::int64_t p = index[a.axis] * a.stride + index[x.rank() + k] * a.dilation - a.before;
      inside = inside && p >= 0 && p < x.dim(a.axis);
      at[a.axis] = p;
    }
    std::int64_t src = 0;
    for (std::int64_t d = 0; d < x.rank(); ++d) src = src * x.dim(d) + at[d];
    result.push_back(inside ? x.get(src) : s.value);
    for (std::size_t k = out.size(); k-- > 0;) {
      if (++index[k] < out[k]) break;
      index[k] = 0;
    }
  }
  return result;
}

// loss = sum(window(x) * weights): its gradient with respect to x is the
// weights folded back, which the test checks against finite differences.
struct Lossy {
  Graph g;
  int window = -1, loss = -1, gradient = -1;
};

Lossy with_loss(const Shape& shape, const Spec& s) {
  Lossy l;
  const int x = l.g.add({.op = Op::input, .name = "x", .type = f32(shape)});
  l.g.inputs.push_back(x);
  l.window = l.g.add(window_node(x, shape, s));
  const Type wt = l.g.nodes[static_cast<std::size_t>(l.window)].type;  // a copy: adding moves nodes
  const int weights = l.g.add({.op = Op::input, .name = "w", .type = wt});
  l.g.inputs.push_back(weights);
  const int product = l.g.add({.op = Op::binary,
                               .in = {l.window, weights},
                               .sub = static_cast<int>(ss::ir::Binary::mul),
                               .type = wt});
  std::vector<std::int64_t> all(wt.axes.size());
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = static_cast<std::int64_t>(k);
  l.loss = l.g.add({.op = Op::reduce,
                    .in = {product},
                    .sub = static_cast<int>(ss::ir::Reduce::sum),
                    .axes = all,
                    .type = Type::scalar()});
  l.gradient = ss::ir::append_gradients(l.g, l.loss, {x}, {}).at(0);
  l.g.outputs = {l.window, l.loss, l.gradient};
  return l;
}

void check_bits(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t o = 0; o < a.size(); ++o) {
    CAPTURE(o);
    REQUIRE(a[o].shape() == b[o].shape());
    CHECK(a[o].values() == b[o].values());
  }
}

const std::vector<std::pair<const char*, std::pair<Shape, Spec>>>& cases() {
  static const std::vector<std::pair<const char*, std::pair<Shape, Spec>>> c = {
      {"1-d, stride 2, padded", {{7}, {{0}, {{3, 2, 1, 1, 1}}}}},
      {"1-d, dilated", {{7}, {{0}, {{2, 1, 3, 0, 0}}}}},
      {"2-d over a batch", {{2, 5, 6}, {{1, 2}, {{3, 2, 1, 1, 0}, {2, 1, 2, 0, 1}}, -1.0}}},
      {"windows that overlap", {{3, 4}, {{1}, {{3, 1, 1, 2, 2}}}}},
      {"shorter than a window", {{2, 2}, {{1}, {{5, 1, 1, 0, 0}}}}},
      // Channels last, not windowed: the fast executor's channel runs.
      {"channels last", {{2, 5, 4, 6}, {{1, 2}, {{3, 2, 1, 1, 1}, {2, 1, 2, 0, 1}}}}},
  };
  return c;
}

}  // namespace

TEST_CASE("window gives each window's elements, the padding outside, as defined") {
  // x = 1..7; size 3, stride 2, one padding each side: 4 windows.
  const Tensor x = Tensor::from_values(DType::f32, {7}, {1, 2, 3, 4, 5, 6, 7});
  Node n = window_node(0, {7}, {{0}, {{3, 2, 1, 1, 1}}});
  const Tensor w = ss::runtime::reference::window(x, ss::ir::window_of(n));
  CHECK(w.shape() == Shape{4, 3});
  CHECK(w.values() == std::vector<double>{0, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 0});
  // size 2, dilation 3: [x0 x3] [x1 x4] [x2 x5] [x3 x6].
  n = window_node(0, {7}, {{0}, {{2, 1, 3, 0, 0}}});
  CHECK(ss::runtime::reference::window(x, ss::ir::window_of(n)).values() ==
        std::vector<double>{1, 4, 2, 5, 3, 6, 4, 7});
  for (const auto& entry : cases()) {
    const char* name = entry.first;  // clang 14's CAPTURE can't take a binding
    const auto& c = entry.second;
    CAPTURE(name);
    const Tensor input = values(c.first, 0.3);
    Node node = window_node(0, c.first, c.second);
    CHECK(ss::runtime::reference::window(input, ss::ir::window_of(node)).values() ==
          by_definition(input, c.second));
  }
}

TEST_CASE("window's gradient (its fold) matches finite differences, on both executors alike") {
  const auto fast = ss::test::make_fast_executor({.threads = 2});
  for (const auto& entry : cases()) {
    const char* name = entry.first;  // clang 14's CAPTURE can't take a binding
    const auto& c = entry.second;
    CAPTURE(name);
    const Lossy l = with_loss(c.first, c.second);
    REQUIRE(ss::ir::verify(l.g) == "");
    const Tensor x = values(c.first, 0.1);
    const Tensor weights = values(ss::ir::window_of(l.g.nodes[l.window]).shape_of(c.first), 0.7);
    const std::map<std::string, Tensor> in = {{"x", x}, {"w", weights}};
    const auto reference = ss::runtime::run_graph(l.g, in, {});
    check_bits(reference, ss::runtime::run_graph(l.g, in, {}, nullptr, fast.get()));
    // The loss is linear in x: central differences see its gradient exactly,
    // but for float32 rounding of the sums.
    const auto grad = reference[2].values();
    REQUIRE(grad.size() == static_cast<std::size_t>(x.size()));
    for (std::int64_t k = 0; k < x.size(); ++k) {
      const auto at = [&](double delta) {
        Tensor moved = x.clone();
        moved.set(k, x.get(k) + delta);
        return ss::runtime::run_graph(l.g, {{"x", moved}, {"w", weights}}, {})[1].get(0);
      };
      const double h = 0.05, fd = (at(h) - at(-h)) / (2 * h);
      CHECK_MESSAGE(std::fabs(fd - grad[static_cast<std::size_t>(k)]) <= 2e-4,
                    "element " << k << ": finite differences " << fd << ", gradient "
                               << grad[static_cast<std::size_t>(k)]);
    }
  }
  // The fast executor ran both with its own kernels, leaving neither to the reference.
  const auto nodes = ss::runtime::executor_nodes(*fast);
  CHECK(nodes.count("moves"));
  CHECK_FALSE(nodes.count("reference window"));
  CHECK_FALSE(nodes.count("reference window_fold"));
}

TEST_CASE("the fold's own gradient is a window: a second gradient through window runs") {
  const Shape shape = {2, 5, 6};
  const Spec s = {{1, 2}, {{3, 2, 1, 1, 0}, {2, 1, 2, 0, 1}}};
  Lossy l = with_loss(shape, s);
  // d/dw of (d loss / dx . u): the window of u, read through the fold.
  const int u = l.g.add({.op = Op::input, .name = "u", .type = f32(shape)});
  l.g.inputs.push_back(u);
  const int dot_in = l.g.add({.op = Op::binary,
                              .in = {l.gradient, u},
                              .sub = static_cast<int>(ss::ir::Binary::mul),
                              .type = f32(shape)});
  const int dot = l.g.add({.op = Op::reduce,
                           .in = {dot_in},
                           .sub = static_cast<int>(ss::ir::Reduce::sum),
                           .axes = {0, 1, 2},
                           .type = Type::scalar()});
  const int weights = l.g.inputs[1];
  const int second = ss::ir::append_gradients(l.g, dot, {weights}, {}).at(0);
  l.g.outputs = {second};
  REQUIRE(ss::ir::verify(l.g) == "");
  const Tensor uu = values(shape, 0.9);
  const auto wshape = ss::ir::window_of(l.g.nodes[l.window]).shape_of(shape);
  const std::map<std::string, Tensor> in = {
      {"x", values(shape, 0.1)}, {"w", values(wshape, 0.7)}, {"u", uu}};
  const auto got = ss::runtime::run_graph(l.g, in, {});
  Spec zero_padded = s;
  zero_padded.value = 0;
  CHECK(got[0].values() == by_definition(uu, zero_padded));
  const auto fast = ss::test::make_fast_executor({.threads = 2});
  check_bits(got, ss::runtime::run_graph(l.g, in, {}, nullptr, fast.get()));
}

TEST_CASE("on several devices a window splits away from the batch axis, and not along it") {
  Graph g;
  Type batched = f32({4, 6});
  batched.axes[0] = Axis::generic("b");
  const int x = g.add({.op = Op::input, .name = "x", .type = batched});
  g.inputs.push_back(x);
  g.batch = {"b"};
  Node over_time = window_node(x, {4, 6}, {{1}, {{3, 1, 1, 1, 1}}});
  over_time.type.axes[0] = Axis::generic("b");
  g.outputs.push_back(g.add(over_time));
  const Graph split = ss::ir::distribute(g);
  CHECK(ss::ir::verify(split) == "");
  REQUIRE(split.split_outputs.size() == 1);
  CHECK(split.split_outputs[0]);  // each worker windows its own examples
  Graph along = g;
  along.nodes[1] = window_node(x, {4, 6}, {{0}, {{2, 1, 1, 0, 0}}});
  CHECK_THROWS_AS(ss::ir::distribute(along), ss::ir::NoDistributedLowering);
}
