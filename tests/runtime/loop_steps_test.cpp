// A loop run as planned steps (runtime/fast/loop_steps.cpp): the same calls
// as the walk of its body makes each step, so the same bits, and the
// reference's values within the `fast` row; a body with something the
// steps don't take is walked as before.
#include <doctest/doctest.h>

#include <cmath>

#include "ir/autodiff.hpp"
#include "lower/lower.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/checked_program.hpp"
#include "support/fast_executor.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;

// A GRU's scan as the ONNX translator writes it: the input's projection
// before the loop, one product a step, the gates' slices, and the last R
// states carried as a shift register (R = T in the translation; fewer or
// more rows than steps here too, the initial rows shifted out or kept).
std::string gru(int rows) {
  const std::string r = std::to_string(rows);
  return "dim T = 7\ndim D = 5\ndim H = 6\ndim G = 18\ndim R = " + r +
         "\n\n"
         "fn f(xs: [n T D], wx: [D G], wh: [H G], bx: [G], bh: [G]) -> ([n H], [n R H]):\n"
         "    h = zeros([n H])\n"
         "    hist = full([" +
         r +
         " n H], 0.5)\n"
         "    p = rearrange(xs, a t d -> t a d) @ wx + bx\n"
         "    for pt in slices(p, over=0):\n"
         "        q = h @ wh + bh\n"
         "        gq: [n G] = q\n"
         "        gp: [n G] = pt\n"
         "        z = sigmoid(gp[G=0:6] + gq[G=0:6])\n"
         "        r = sigmoid(gp[G=6:12] + gq[G=6:12])\n"
         "        c = tanh(gp[G=12:18] + r * gq[G=12:18])\n"
         "        h = (1.0 - z) * c + z * h\n"
         "        past: [R n H] = hist\n"
         "        hist = concat(past[R=1:" +
         r +
         "], rearrange(h, p q -> 1 p q), over=0)\n"
         "    return h, rearrange(hist, t b e -> b t e)\n";
}

Tensor filled(const ss::runtime::Shape& shape, double phase) {
  Tensor t = Tensor::zeros(DType::f32, shape);
  for (std::int64_t k = 0; k < t.size(); ++k)
    t.set(k, 0.8 * std::sin(phase + 0.37 * static_cast<double>(k)));
  return t;
}

std::unique_ptr<ss::runtime::GraphExecutor> fast(bool plan_loops) {
  return ss::test::make_fast_executor(
      {.threads = 1, .plan_loops = plan_loops, .jit_library = ss::test::kJitPath});
}

void check_bits(const std::vector<Tensor>& planned, const std::vector<Tensor>& walked) {
  REQUIRE(planned.size() == walked.size());
  for (std::size_t o = 0; o < planned.size(); ++o) {
    CAPTURE(o);
    REQUIRE(planned[o].shape() == walked[o].shape());
    CHECK(planned[o].values() == walked[o].values());
  }
}

void check_near(const std::vector<Tensor>& reference, const std::vector<Tensor>& planned) {
  const auto& t = ss::test::tolerance("fast");
  REQUIRE(reference.size() == planned.size());
  for (std::size_t o = 0; o < reference.size(); ++o) {
    CAPTURE(o);
    const auto a = reference[o].values(), b = planned[o].values();
    REQUIRE(a.size() == b.size());
    const double scale = t.tensor_scale ? ss::test::tensor_scale(a) : 1.0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      CAPTURE(k);
      const double at = t.tensor_scale ? scale : std::abs(a[k]);
      CHECK(std::abs(a[k] - b[k]) <=
            t.absolute + t.relative * at + t.ulp * ss::test::float_ulp(a[k]));
    }
  }
}

bool no_jit() {
  if (!std::string(ss::test::kJitPath).empty()) return false;
  ss::test::skip("no JIT module in this build");
  return true;
}

}  // namespace

TEST_CASE("a recurrent scan runs as planned steps: the walked body's bits, at batch 1 and 3") {
  if (no_jit()) return;
  const auto planned = fast(true), walked = fast(false);
  std::int64_t runs = 0;
  for (const int rows : {7, 4, 9}) {
    CAPTURE(rows);
    const auto program = ss::test::check_source_text(gru(rows));
    const auto g = ss::lower::lower_function(program->typed, "f");
    for (const std::int64_t n : {1, 3}) {
      CAPTURE(n);
      const std::map<std::string, Tensor> inputs = {{"xs", filled({n, 7, 5}, 0.1)},
                                                    {"wx", filled({5, 18}, 0.7)},
                                                    {"wh", filled({6, 18}, 1.3)},
                                                    {"bx", filled({18}, 2.1)},
                                                    {"bh", filled({18}, 2.9)}};
      const auto& dims = program->typed.dims;
      const auto a = ss::runtime::run_graph(g, inputs, dims, nullptr, planned.get());
      // Again: the same bits.
      const auto b = ss::runtime::run_graph(g, inputs, dims, nullptr, planned.get());
      const auto c = ss::runtime::run_graph(g, inputs, dims, nullptr, walked.get());
      check_bits(a, c);
      check_bits(b, c);
      check_near(ss::runtime::run_graph(g, inputs, dims), a);
      // The history's last row is the state; with more rows than steps,
      // its first are the initial ones.
      CHECK(a[1].values().back() == a[0].values().back());
      if (rows > 7) CHECK(a[1].values().front() == 0.5);
      runs += 2;
    }
  }
  CHECK(ss::runtime::fusion_counts(*planned).planned_loops == runs);
  CHECK(ss::runtime::fusion_counts(*walked).planned_loops == 0);
  // The walk's counts as if it had run the body: two kernels a step.
  CHECK(ss::runtime::fusion_counts(*planned).runs == ss::runtime::fusion_counts(*walked).runs * 2);
}

TEST_CASE("a stack's forward and backward loops run as planned steps where they can, bit for bit") {
  if (no_jit()) return;
  // Its layers' weights are sliced a step at a time (resident weights read
  // with their packed panels), a layer's bias and ReLU added in the GEMM's
  // store; its forward saves per-step results for the backward; what the
  // steps can't take (the backward's reductions) is walked.
  const auto program = ss::test::check_source_text(
      "dim D = 8\ndim L = 3\n"
      "model Block:\n"
      "    param up: [D 2*D] = glorot\n"
      "    param bias: [2*D] = zeros\n"
      "    param down: [2*D D] = glorot\n"
      "model Net:\n"
      "    blocks: [L] Block\n"
      "fn f(m: Net, x: [n D]) -> []:\n"
      "    h = x\n"
      "    for k in m.blocks:\n"
      "        h = h + relu(h @ k.up + k.bias) @ k.down\n"
      "    return sum(h * h)\n");
  ss::ir::Graph g = ss::lower::lower_function(program->typed, "f");
  std::vector<int> wrt;
  for (const int id : g.inputs) wrt.push_back(id);
  const auto grads = ss::ir::append_gradients(g, g.outputs[0], wrt, program->typed.dims);
  for (const int id : grads) g.outputs.push_back(id);
  std::map<std::string, Tensor> inputs;
  double phase = 0.3;
  for (const int id : g.inputs) {
    const auto& node = g.nodes[static_cast<std::size_t>(id)];
    ss::runtime::Shape shape;
    for (const auto& axis : node.type.axes)
      shape.push_back(ss::runtime::size_of(axis, {{"n", 5}}, program->typed.dims).value_or(5));
    inputs[node.name] = filled(shape, phase += 0.9);
  }
  const auto planned = fast(true), walked = fast(false);
  const auto& dims = program->typed.dims;
  const auto a = ss::runtime::run_graph(g, inputs, dims, nullptr, planned.get());
  check_bits(a, ss::runtime::run_graph(g, inputs, dims, nullptr, walked.get()));
  check_near(ss::runtime::run_graph(g, inputs, dims), a);
  CHECK(ss::runtime::fusion_counts(*planned).planned_loops >= 1);
}

TEST_CASE("a bias a step computes after its product is read where it is made") {
  if (no_jit()) return;
  // `b * 2.0` comes after `h @ w` in the body's order: the product and its
  // bias run where the kernel reading both is, after each step made it.
  const auto program = ss::test::check_source_text(
      "dim T = 5\ndim H = 4\n\n"
      "fn f(xs: [T n H], w: [H H], b: [H]) -> [n H]:\n"
      "    h = zeros([n H])\n"
      "    for x in slices(xs, over=0):\n"
      "        h = tanh(h @ w + b * 2.0) + x\n"
      "    return h\n");
  const auto g = ss::lower::lower_function(program->typed, "f");
  const std::map<std::string, Tensor> inputs = {
      {"xs", filled({5, 3, 4}, 0.5)}, {"w", filled({4, 4}, 1.5)}, {"b", filled({4}, 2.5)}};
  const auto planned = fast(true), walked = fast(false);
  const auto& dims = program->typed.dims;
  const auto a = ss::runtime::run_graph(g, inputs, dims, nullptr, planned.get());
  check_bits(a, ss::runtime::run_graph(g, inputs, dims, nullptr, walked.get()));
  check_near(ss::runtime::run_graph(g, inputs, dims), a);
  CHECK(ss::runtime::fusion_counts(*planned).planned_loops == 1);
}

TEST_CASE("a loop body with what planned steps don't take is walked, as before") {
  if (no_jit()) return;
  // softmax is neither a product, a kernel, a view nor a join.
  const auto program = ss::test::check_source_text(
      "dim T = 4\ndim H = 3\n\n"
      "fn f(xs: [T n H], w: [H H]) -> [n H]:\n"
      "    h = zeros([n H])\n"
      "    for x in slices(xs, over=0):\n"
      "        h = softmax(h @ w + x, over=H)\n"
      "    return h\n");
  const auto g = ss::lower::lower_function(program->typed, "f");
  const std::map<std::string, Tensor> inputs = {{"xs", filled({4, 2, 3}, 0.5)},
                                                {"w", filled({3, 3}, 1.5)}};
  const auto planned = fast(true), walked = fast(false);
  const auto& dims = program->typed.dims;
  check_bits(ss::runtime::run_graph(g, inputs, dims, nullptr, planned.get()),
             ss::runtime::run_graph(g, inputs, dims, nullptr, walked.get()));
  CHECK(ss::runtime::fusion_counts(*planned).planned_loops == 0);
}
