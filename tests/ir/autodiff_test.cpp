// Every operation's gradient against central finite differences: each
// function of tests/programs/gradients/ops.ss is lowered, differentiated
// with respect to every float input, and run on the reference runtime.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "ir/autodiff.hpp"
#include "ir/ops.hpp"
#include "lower/lower.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/checked_program.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;
using ss::types::ElemKind;
using ss::types::Factor;

constexpr std::int64_t kGeneric = 3;  // every generic axis (n) has this size

std::int64_t size_of(const ss::types::Axis& axis, const ss::runtime::Dims& dims) {
  std::int64_t n = 1;
  for (const auto& f : axis.factors)
    n *= f.kind == Factor::Kind::literal ? f.value
         : f.kind == Factor::Kind::dim   ? dims.at(f.name).value()
                                         : kGeneric;
  return n;
}

// Distinct values in (-1.2, 1.2), kept clear of the kinks the program uses
// (0, 0.3, -0.2), so a finite difference doesn't straddle one.
double smooth_value(std::int64_t k, std::size_t input) {
  double v = 1.2 * std::sin(0.77 * static_cast<double>(k) + 1.3 * static_cast<double>(input) + 0.1);
  for (const double kink : {0.0, 0.3, -0.2})
    if (std::fabs(v - kink) < 0.04) v += 0.08;
  return v;
}

std::map<std::string, Tensor> inputs_for(const ss::ir::Graph& g, const ss::runtime::Dims& dims) {
  std::map<std::string, Tensor> out;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const auto& node = g.nodes[static_cast<std::size_t>(g.inputs[i])];
    ss::runtime::Shape shape;
    for (const auto& axis : node.type.axes) shape.push_back(size_of(axis, dims));
    const bool index = node.type.elem.kind == ElemKind::index;
    Tensor t = Tensor::zeros(index ? DType::i32 : DType::f32, shape);
    const std::int64_t bound = index ? size_of(*node.type.elem.index_of, dims) : 0;
    for (std::int64_t k = 0; k < t.size(); ++k)
      t.set(k, index ? static_cast<double>((k * 2 + 1) % bound) : smooth_value(k, i));
    out[node.name] = t;
  }
  return out;
}

}  // namespace

TEST_CASE("every operation's gradient matches central finite differences") {
  const auto program = ss::test::check_source_file("tests/programs/gradients/ops.ss");
  const auto& dims = program->typed.dims;
  int checked = 0;
  for (const auto& entry : program->typed.functions) {
    const std::string& name = entry.first;  // not a binding: clang 14's CAPTURE can't take one
    CAPTURE(name);
    const ss::ir::Graph forward = ss::lower::lower_function(program->typed, name);
    ss::ir::Graph backward = forward;
    std::vector<int> wrt;
    std::vector<std::string> wrt_names;
    for (const int id : forward.inputs) {
      const auto& node = forward.nodes[static_cast<std::size_t>(id)];
      if (node.type.elem.is_float()) {
        wrt.push_back(id);
        wrt_names.push_back(node.name);
      }
    }
    const auto grads = ss::ir::append_gradients(backward, forward.outputs.at(0), wrt, dims);
    REQUIRE(grads.size() == wrt.size());
    for (const int gid : grads) REQUIRE(gid >= 0);  // every input reaches the output
    backward.outputs = grads;
    const std::string why = ss::ir::verify(backward);
    const std::string listing = why.empty() ? "" : ss::ir::print(backward);
    CAPTURE(listing);
    REQUIRE(why == "");

    const auto inputs = inputs_for(forward, dims);
    const auto analytic = ss::runtime::run_graph(backward, inputs, dims);
    for (std::size_t w = 0; w < wrt.size(); ++w) {
      CAPTURE(wrt_names[w]);
      const Tensor& x = inputs.at(wrt_names[w]);
      REQUIRE(analytic[w].shape() == x.shape());
      for (std::int64_t k = 0; k < x.size(); ++k) {
        CAPTURE(k);
        const double h = 1e-2;
        auto shifted = inputs;
        const auto f = [&](double delta) {
          Tensor moved = Tensor::from_values(DType::f32, x.shape(), x.values());
          moved.set(k, x.get(k) + delta);
          shifted[wrt_names[w]] = moved;
          return ss::runtime::run_graph(forward, shifted, dims).at(0).get(0);
        };
        const double numeric = (f(h) - f(-h)) / (2 * h);
        const double exact = analytic[w].get(k);
        CHECK(std::fabs(numeric - exact) <= 3e-3 + 2e-2 * std::fabs(exact));
        ++checked;
      }
    }
  }
  CHECK(checked > 300);
}

TEST_CASE("integer and bool paths carry no gradient, an unreachable input gets none") {
  const auto program = ss::test::check_source_file("tests/programs/gradients/ops.ss");
  ss::ir::Graph g = ss::lower::lower_function(program->typed, "classify");
  // classify's labels are an Index: only the logits get a gradient.
  std::vector<int> wrt;
  for (const int id : g.inputs) wrt.push_back(id);
  const auto grads = ss::ir::append_gradients(g, g.outputs[0], wrt, program->typed.dims);
  REQUIRE(grads.size() == 2);
  CHECK(grads[0] >= 0);
  CHECK(grads[1] == -1);
}

TEST_CASE("a training step computes no gradient for its data: nothing no output reads") {
  const auto program = ss::test::check_source_text(
      "dim D = 5\ndim H = 4\ndim C = 3\n\n"
      "data Ex:\n    x: [D]\n    y: [] Index[C]\n\n"
      "model Mlp:\n    param w1: [D H] = normal(std=0.05)\n    param w2: [H C] = "
      "normal(std=0.05)\n\n"
      "fn loss(m: Mlp, batch: [b] Ex) -> []:\n"
      "    unused = exp(batch.x)\n"
      "    return cross_entropy(relu(batch.x @ m.w1) @ m.w2, batch.y, over=C)\n\n"
      "fn step(mut m: Mlp, mut opt: AdamW[Mlp], batch: [b] Ex) -> []:\n"
      "    l, g = value_and_grad(loss, m, batch)\n"
      "    update(mut m, mut opt, g)\n"
      "    return l\n");
  const ss::ir::Graph g = ss::lower::lower_function(program->typed, "step");
  // Two products forward; backward, both weights' gradients and the
  // hidden layer's: never x's (x @ w1's share for x), nor the unused exp.
  int products = 0, exps = 0;
  for (const auto& n : g.nodes) {
    products += n.op == ss::ir::Op::matmul || n.op == ss::ir::Op::einsum;
    exps += n.op == ss::ir::Op::unary && n.sub == static_cast<int>(ss::ir::Unary::exp);
  }
  CHECK(products == 5);
  CHECK(exps == 0);
  // Every node is read by a later one or is an output or an input.
  std::vector<bool> read(g.nodes.size(), false);
  for (const auto& n : g.nodes)
    for (const int x : n.in) read[static_cast<std::size_t>(x)] = true;
  for (const int o : g.outputs) read[static_cast<std::size_t>(o)] = true;
  for (const int i : g.inputs) read[static_cast<std::size_t>(i)] = true;
  CHECK(std::find(read.begin(), read.end(), false) == read.end());
  CHECK(ss::ir::verify(g).empty());
}

TEST_CASE("drop_unused keeps the inputs, the outputs and their order, renumbered") {
  ss::ir::Graph g;
  const auto t = ss::types::Type::tensor({}, ss::types::Elem{ss::types::ElemKind::f32, {}, false});
  const int x = g.add({.op = ss::ir::Op::input, .name = "x", .type = t});
  const int y = g.add({.op = ss::ir::Op::input, .name = "y", .type = t});  // read by nothing
  const int dead = g.add({.op = ss::ir::Op::unary, .in = {x}, .type = t});
  const int z = g.add({.op = ss::ir::Op::binary, .in = {x, x}, .type = t});
  (void)dead;
  g.inputs = {x, y};
  g.outputs = {z, x};
  ss::ir::drop_unused(g);
  REQUIRE(g.nodes.size() == 3);
  CHECK(g.inputs == std::vector<int>{0, 1});
  CHECK(g.outputs == std::vector<int>{2, 0});
  CHECK(g.nodes[2].op == ss::ir::Op::binary);
  CHECK(g.nodes[2].in == std::vector<int>{0, 0});
  CHECK(ss::ir::verify(g).empty());
}

TEST_CASE("a function called twice on the same values is computed once, its gradient too") {
  const auto program = ss::test::check_source_text(
      "dim E = 4\n\nmodel M:\n    param w: [E E] = normal(std=0.5)\n\n"
      "fn f(m: M, x: [b E]) -> [b E] = softmax(tanh(x @ m.w), over=-1)\n"
      "fn loss(m: M, x: [b E]) -> [] = sum(f(m, x) * f(m, x))\n"
      "fn step(mut m: M, mut opt: Adam[M], x: [b E]) -> []:\n"
      "    l, g = value_and_grad(loss, m, x)\n"
      "    update(mut m, mut opt, g)\n"
      "    return l\n");
  const ss::ir::Graph g = ss::lower::lower_function(program->typed, "step");
  std::map<ss::ir::Op, int> count;
  for (const auto& n : g.nodes) ++count[n.op];
  CHECK(count[ss::ir::Op::softmax] == 1);  // one forward
  CHECK(count[ss::ir::Op::matmul] == 1);
  // Backward: softmax's rule reads y and g once (y (g - sum(g y))), and
  // x @ w's gradient for w is one einsum, not one per call.
  CHECK(count[ss::ir::Op::einsum] == 1);
  CHECK(ss::ir::verify(g).empty());
}

TEST_CASE("merge_duplicates folds equal nodes, add's operands in either order, never inputs") {
  ss::ir::Graph g;
  const auto t = ss::types::Type::tensor({}, ss::types::Elem{ss::types::ElemKind::f32, {}, false});
  const int x = g.add({.op = ss::ir::Op::input, .name = "x", .type = t});
  const int y = g.add({.op = ss::ir::Op::input, .name = "y", .type = t});
  const int add = static_cast<int>(ss::ir::Binary::add),
            sub = static_cast<int>(ss::ir::Binary::sub);
  const int a = g.add({.op = ss::ir::Op::binary, .in = {x, y}, .sub = add, .type = t});
  const int b = g.add({.op = ss::ir::Op::binary, .in = {y, x}, .sub = add, .type = t});
  const int c = g.add({.op = ss::ir::Op::binary, .in = {x, y}, .sub = sub, .type = t});
  const int d = g.add({.op = ss::ir::Op::binary, .in = {y, x}, .sub = sub, .type = t});  // not c
  const int e = g.add({.op = ss::ir::Op::binary, .in = {b, c}, .sub = sub, .type = t});
  const int f = g.add({.op = ss::ir::Op::binary, .in = {a, c}, .sub = sub, .type = t});  // e
  g.inputs = {x, y};
  g.outputs = {e, f, d};
  ss::ir::merge_duplicates(g);
  CHECK(g.outputs == std::vector<int>{e, e, d});
  CHECK(g.nodes[static_cast<std::size_t>(e)].in == std::vector<int>{a, c});
  ss::ir::drop_unused(g);
  CHECK(g.nodes.size() == 6);  // x, y, a, c, d, e
  CHECK(ss::ir::verify(g).empty());
}
