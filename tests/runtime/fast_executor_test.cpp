// The fast executor (runtime/fast/fast_executor.hpp) against the reference
// interpreter: every lowered device function of the valid programs, and
// every operation's gradient graph, on the same inputs, within float32
// rounding; the executor must really have taken work (matmul, einsum,
// unary, binary nodes, and fused kernels where the JIT is built), and
// strided views read through it as through the reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "api/value_state.hpp"
#include "ir/autodiff.hpp"
#include "ir/fusion.hpp"
#include "lower/lower.hpp"
#include "runtime/fast/fast_contractions.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "runtime/reference/ops.hpp"
#include "shapescript/shapescript.hpp"
#include "support/checked_program.hpp"
#include "support/fast_executor.hpp"
#include "support/lowered_graphs.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;
using ss::types::Factor;

// The fast executor, counting the nodes it takes, by operation.
struct Counting final : ss::runtime::GraphExecutor {
  std::unique_ptr<ss::runtime::GraphExecutor> fast =
      ss::test::make_fast_executor({.threads = 2, .jit_library = ss::test::kJitPath});
  mutable std::map<std::string, int> taken;
  std::string name() const override { return "the fast executor, counted"; }
  std::shared_ptr<const ss::ir::ReleasePlan> releases(const ss::ir::Graph& g) const override {
    return fast->releases(g);
  }
  bool run(const ss::ir::Graph& g, std::size_t i, std::vector<Tensor>& values,
           const std::map<std::string, std::int64_t>& sizes,
           const ss::runtime::Dims& dims) const override {
    if (!fast->run(g, i, values, sizes, dims)) return false;
    ++taken[ss::ir::op_name(g.nodes[i].op)];
    return true;
  }
};

void check_same(const std::vector<Tensor>& reference, const std::vector<Tensor>& fast) {
  REQUIRE(reference.size() == fast.size());
  for (std::size_t o = 0; o < reference.size(); ++o) {
    CAPTURE(o);
    REQUIRE(reference[o].shape() == fast[o].shape());
    REQUIRE(reference[o].dtype() == fast[o].dtype());
    const auto a = reference[o].values(), b = fast[o].values();
    // docs/numerics.md's `fast` row: float32 sums rounded in another order
    // drift with the values' scale (tinylm's attention scores reach 78).
    const auto& t = ss::test::tolerance("fast");
    const double scale = ss::test::tensor_scale(a);
    for (std::size_t k = 0; k < a.size(); ++k)
      CHECK_MESSAGE(ss::test::agrees(b[k], a[k], scale, t),
                    "element " << k << ": reference " << a[k] << ", fast " << b[k]);
  }
}

// The same outputs within docs/numerics.md's `fast-elementwise` row (the
// reference's bits, where `bits`), of the same shapes and element types.
void check_outputs(const std::vector<Tensor>& reference, const std::vector<Tensor>& fast,
                   bool bits) {
  REQUIRE(fast.size() == reference.size());
  for (std::size_t o = 0; o < fast.size(); ++o) {
    CAPTURE(o);
    REQUIRE(fast[o].shape() == reference[o].shape());
    CHECK(fast[o].dtype() == reference[o].dtype());
    const auto a = reference[o].values(), b = fast[o].values();
    const auto& t = ss::test::tolerance("fast-elementwise");
    const double scale = ss::test::tensor_scale(a);
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < a.size(); ++k) {
      const bool same = a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k]));
      if (!(bits ? same : ss::test::agrees(b[k], a[k], scale, t)) && wrong++ < 5)
        MESSAGE("element " << k << ": reference " << a[k] << ", fast " << b[k]);
    }
    CHECK(wrong == 0);
  }
}

void check_elementwise(const std::vector<Tensor>& reference, const std::vector<Tensor>& fast) {
  check_outputs(reference, fast, false);
}

void check_bits(const std::vector<Tensor>& reference, const std::vector<Tensor>& fast) {
  check_outputs(reference, fast, true);
}

}  // namespace

TEST_CASE("the fast executor gives the reference's results for every lowered function") {
  Counting counting;
  int ran = 0;
  for (const std::string file :
       {"tests/programs/valid/operations.ss", "tests/programs/valid/features.ss",
        "examples/tinylm/tinylm.ss", "examples/digits/digits.ss"}) {
    const auto program = ss::test::check_source_file(file);
    for (const auto& lowered : ss::test::lowered_graphs(*program)) {
      const ss::ir::Graph& graph = lowered.graph;
      CAPTURE(file);
      CAPTURE(lowered.function);
      const auto inputs = ss::test::made_up_inputs(graph, program->typed.dims);
      std::vector<Tensor> reference;
      try {
        reference = ss::runtime::run_graph(graph, inputs, program->typed.dims);
      } catch (const ss::runtime::reference::RangeError&) {
        continue;  // made-up inputs a function refuses (an id out of range): nothing to compare
      }
      check_same(reference,
                 ss::runtime::run_graph(graph, inputs, program->typed.dims, nullptr, &counting));
      ++ran;
    }
  }
  CHECK(ran > 20);
  // Nothing left to the reference but random draws (the generator itself).
  for (const auto& entry : ss::runtime::executor_nodes(*counting.fast)) {
    const auto& path = entry.first;  // named: clang 14 can't capture a binding
    const auto& count = entry.second;
    CHECK_MESSAGE((path.rfind("reference ", 0) != 0 || path == "reference random"),
                  path << ": " << count);
  }
  for (const char* op :
       {"matmul", "einsum", "unary", "binary", "reduce", "einops", "causal", "cast"}) {
    CAPTURE(op);
    CHECK(counting.taken[op] > 0);
  }
  // With the JIT, elementwise regions ran as fused kernels.
  const auto fused = ss::runtime::fusion_counts(*counting.fast);
  if (std::string(ss::test::kJitPath).empty()) {
    MESSAGE("no JIT module in this build: nothing fused");
  } else {
    // (compiled here, or found compiled by an earlier test of this process)
    CHECK(fused.kernels + fused.from_memory > 10);
    CHECK(fused.runs > 10);
  }
}

TEST_CASE("the fast executor gives the reference's gradients for every operation") {
  const auto program = ss::test::check_source_file("tests/programs/gradients/ops.ss");
  const auto& dims = program->typed.dims;
  Counting counting;
  int ran = 0;
  for (const auto& lowered : ss::test::lowered_graphs(*program, true)) {
    CAPTURE(lowered.function);
    const ss::ir::Graph& backward = lowered.graph;  // the gradients appended
    const auto inputs = ss::test::made_up_inputs(backward, dims);
    check_same(ss::runtime::run_graph(backward, inputs, dims),
               ss::runtime::run_graph(backward, inputs, dims, nullptr, &counting));
    ++ran;
  }
  CHECK(ran > 15);
  CHECK(counting.taken["einsum"] > 0);
  // Gradients leave four rare nodes to the reference: an einsum of a layout
  // the GEMM path doesn't take, a log_softmax and a reduction over a
  // leading axis, and take_along (a sort's gradient).
  std::int64_t left = 0;
  for (const auto& [path, count] : ss::runtime::executor_nodes(*counting.fast))
    if (path.rfind("reference ", 0) == 0) left += count;
  CHECK(left <= 4);
}

TEST_CASE("the fast executor reads strided views: transposed and sliced operands") {
  Counting counting;
  ss::ir::Graph g;
  // Build x @ w and x * w-ish graphs by hand would repeat the lowering: use
  // a program instead, with inputs given as views.
  const auto program = ss::test::check_source_text(
      "dim K = 6\ndim N = 5\n\n"
      "fn f(x: [b K], w: [K N]) -> [b N]:\n    return relu(x @ w) * 2.0 - x @ w\n");
  g = ss::lower::lower_function(program->typed, "f");
  const auto dims = program->typed.dims;
  // x as the transpose of a [K b] tensor, w as a slice of a wider one.
  Tensor xt = Tensor::zeros(DType::f32, {6, 7}), wide = Tensor::zeros(DType::f32, {6, 9});
  for (std::int64_t k = 0; k < xt.size(); ++k) xt.set(k, std::cos(0.3 * static_cast<double>(k)));
  for (std::int64_t k = 0; k < wide.size(); ++k)
    wide.set(k, std::sin(0.2 * static_cast<double>(k)));
  const std::map<std::string, Tensor> views = {{"x", xt.permute({1, 0})},
                                               {"w", wide.slice(1, 2, 7)}};
  const std::map<std::string, Tensor> copies = {{"x", views.at("x").compact()},
                                                {"w", views.at("w").compact()}};
  const auto reference = ss::runtime::run_graph(g, copies, dims);
  check_same(reference, ss::runtime::run_graph(g, views, dims, nullptr, &counting));
  CHECK(counting.taken["matmul"] == 1);  // x @ w written twice, computed once (merge_duplicates)
}

TEST_CASE("a fused kernel agrees with the reference, broadcasting, bool conditions and all") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  const auto program = ss::test::check_source_text(ss::test::kFusedKernelProgram);
  const auto g = ss::lower::lower_function(program->typed, "f");
  const auto kernels = ss::ir::plan_fusion(g);
  // z is read twice, so it is a kernel's root of its own, and the return another's.
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].members.size() + kernels[1].members.size() >= 10);
  // 5 rows, and 12000 (84000 elements), which two threads split between them.
  auto fast = ss::test::make_fast_executor({.threads = 2, .jit_library = ss::test::kJitPath});
  for (const std::int64_t rows : {5, 12000}) {
    CAPTURE(rows);
    Tensor x = Tensor::zeros(DType::f32, {rows, 7}), y = Tensor::zeros(DType::f32, {7}),
           c = Tensor::zeros(DType::f32, {rows, 1});
    for (std::int64_t k = 0; k < x.size(); ++k)
      x.set(k, 2.5 * std::sin(1.3 * static_cast<double>(k)));
    for (std::int64_t k = 0; k < y.size(); ++k) y.set(k, std::cos(0.9 * static_cast<double>(k)));
    for (std::int64_t k = 0; k < c.size(); ++k) c.set(k, 0.5 + static_cast<double>(k % 9));
    const std::map<std::string, Tensor> inputs = {{"x", x}, {"y", y}, {"c", c}};
    const auto reference = ss::runtime::run_graph(g, inputs, program->typed.dims);
    const auto fused = ss::runtime::run_graph(g, inputs, program->typed.dims, nullptr, fast.get());
    check_elementwise(reference, fused);
  }
  // Its two kernels, compiled here or earlier in this process, ran twice each.
  const auto counts = ss::runtime::fusion_counts(*fast);
  CHECK(counts.kernels + counts.from_memory == 2);
  CHECK(counts.runs == 4);
  CHECK(counts.stepped == 0);
}

TEST_CASE("a fused kernel runs compiled over axes of size 1: a batch of one, a single row") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  // An axis of size 1 has stride 0 in the kernel's view of an input; the
  // rows of [1 7 5] are still evenly spaced (a batch of one was run element
  // by element on the reference's operations before).
  const auto program = ss::test::check_source_text(
      "dim C = 5\n\n"
      "fn f(x: [n t C], b: [C], r: [n t C]) -> [n t C]:\n"
      "    return maximum(x * 2.0 + b, 0.0) + r\n");
  const auto g = ss::lower::lower_function(program->typed, "f");
  REQUIRE(ss::ir::plan_fusion(g).size() == 1);
  auto fast = ss::test::make_fast_executor({.threads = 1, .jit_library = ss::test::kJitPath});
  const std::vector<std::pair<std::int64_t, std::int64_t>> sizes = {{1, 7}, {4, 1}, {1, 1}, {3, 2}};
  for (const auto& size : sizes) {
    const std::int64_t n = size.first, t = size.second;  // (clang 14: no CAPTURE of a binding)
    CAPTURE(n);
    CAPTURE(t);
    Tensor x = Tensor::zeros(DType::f32, {n, t, 5}), r = Tensor::zeros(DType::f32, {n, t, 5}),
           b = Tensor::zeros(DType::f32, {5});
    for (std::int64_t k = 0; k < x.size(); ++k) {
      x.set(k, std::sin(1.3 * static_cast<double>(k)));
      r.set(k, std::cos(0.7 * static_cast<double>(k)));
    }
    for (std::int64_t k = 0; k < 5; ++k) b.set(k, 0.1 * static_cast<double>(k) - 0.2);
    const std::map<std::string, Tensor> inputs = {{"x", x}, {"b", b}, {"r", r}};
    check_elementwise(ss::runtime::run_graph(g, inputs, program->typed.dims),
                      ss::runtime::run_graph(g, inputs, program->typed.dims, nullptr, fast.get()));
  }
  const auto counts = ss::runtime::fusion_counts(*fast);
  CHECK(counts.runs == 4);
  CHECK(counts.stepped == 0);
}

TEST_CASE("an elementwise region and the reduction after it run as one loop nest") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  const auto program = ss::test::check_source_text(
      "dim C = 5\ndim T = 3\n\n"
      "fn f(x: [n T C], y: [C]) -> ([n T], [n T 1], [n], [n T], [n T]):\n"
      "    return sum(exp(x - 1.0) * 2.0, over=C), logsumexp(x * 0.5 + y, over=C, keep=true), "
      "var(tanh(x) * y, over=[T C]), max(x * y, over=C), min(abs(x) + y, over=C)\n");
  const auto g = ss::lower::lower_function(program->typed, "f");
  int fused_reductions = 0;
  for (const auto& k : ss::ir::plan_fusion(g)) fused_reductions += k.reduce >= 0;
  CHECK(fused_reductions == 5);
  auto fast = ss::test::make_fast_executor({.threads = 2, .jit_library = ss::test::kJitPath});
  // 3 rows, and 9000 (135000 elements): tiles, and two threads.
  for (const std::int64_t rows : {3, 9000}) {
    CAPTURE(rows);
    Tensor x = Tensor::zeros(DType::f32, {rows, 3, 5}), y = Tensor::zeros(DType::f32, {5});
    for (std::int64_t k = 0; k < x.size(); ++k)
      x.set(k, k % 13 == 4 ? std::nan("") : 2.5 * std::sin(1.3 * static_cast<double>(k)));
    for (std::int64_t k = 0; k < y.size(); ++k) y.set(k, std::cos(0.9 * static_cast<double>(k)));
    const std::map<std::string, Tensor> inputs = {{"x", x}, {"y", y}};
    check_elementwise(ss::runtime::run_graph(g, inputs, program->typed.dims),
                      ss::runtime::run_graph(g, inputs, program->typed.dims, nullptr, fast.get()));
  }
  const auto nodes = ss::runtime::executor_nodes(*fast);
  CHECK(nodes.count("reductions") == 0);  // every reduction ran inside its kernel's loop nest
  CHECK(ss::runtime::fusion_counts(*fast).runs == 10);
}

TEST_CASE("a matmul's epilogue runs on each block of its rows: the unfused executor's bits") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  const auto program = ss::test::check_source_text(
      "dim D = 40\ndim H = 24\n\n"
      "fn f(x: [n D], w: [D H], b: [H]) -> [n H] = relu(x @ w + b) * 2.0 - 0.5\n");
  const auto g = ss::lower::lower_function(program->typed, "f");
  const auto kernels = ss::ir::plan_fusion(g);
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].epilogue >= 0);
  auto fused = ss::test::make_fast_executor({.threads = 2, .jit_library = ss::test::kJitPath});
  auto plain = ss::test::make_fast_executor({.threads = 2, .fuse = false});
  // 3 rows (one block) and 6000 (three blocks: 2730 rows, 64K floats, each).
  for (const std::int64_t rows : {3, 6000}) {
    CAPTURE(rows);
    Tensor x = Tensor::zeros(DType::f32, {rows, 40}), w = Tensor::zeros(DType::f32, {40, 24}),
           b = Tensor::zeros(DType::f32, {24});
    for (std::int64_t k = 0; k < x.size(); ++k) x.set(k, std::sin(0.37 * static_cast<double>(k)));
    for (std::int64_t k = 0; k < w.size(); ++k) w.set(k, std::cos(0.11 * static_cast<double>(k)));
    for (std::int64_t k = 0; k < b.size(); ++k) b.set(k, 0.1 * static_cast<double>(k % 7) - 0.3);
    // w as a transposed view too: the GEMM reads it by its strides.
    const Tensor wt = w.permute({1, 0}).compact().permute({1, 0});
    for (const Tensor* weights : std::vector<const Tensor*>{&w, &wt}) {
      const std::map<std::string, Tensor> inputs = {{"x", x}, {"w", *weights}, {"b", b}};
      check_bits(ss::runtime::run_graph(g, inputs, program->typed.dims, nullptr, plain.get()),
                 ss::runtime::run_graph(g, inputs, program->typed.dims, nullptr, fused.get()));
      check_same(ss::runtime::run_graph(g, inputs, program->typed.dims),
                 ss::runtime::run_graph(g, inputs, program->typed.dims, nullptr, fused.get()));
    }
  }
  const auto nodes = ss::runtime::executor_nodes(*fused);
  CHECK(nodes.count("gemm") == 0);  // every product was made inside its epilogue's run
  // Each run: the product, add, relu, mul and sub fused; its two constants made.
  CHECK(nodes.at("fused") == 5 * (nodes.at("created") / 2));
}

TEST_CASE("the fast executor's reductions agree with the reference, NaNs and ties included") {
  const auto program = ss::test::check_source_text(
      "dim B = 3\ndim C = 5\n\n"
      "fn f(x: [a B C]) -> ([B C], [a B], [B C], [a B 1], [a C], [a B], [a B C], [a B C], "
      "[a 1 C]):\n"
      "    return max(x, over=a), min(x, over=C), mean(x, over=a), sum(x, over=C, keep=true), "
      "sum(x, over=B), logsumexp(x, over=C), softmax(x, over=C), log_softmax(x, over=C), "
      "max(x, over=B, keep=true)\n");
  const auto g = ss::lower::lower_function(program->typed, "f");
  Counting counting;  // two threads: 8000 rows of x (120000 elements) split between them
  for (const std::int64_t rows : {4, 8000}) {
    CAPTURE(rows);
    Tensor x = Tensor::zeros(DType::f32, {rows, 3, 5});
    for (std::int64_t k = 0; k < x.size(); ++k)
      x.set(k, k % 11 == 3 ? std::nan("") : std::round(3 * std::sin(0.7 * static_cast<double>(k))));
    const auto reference = ss::runtime::run_graph(g, {{"x", x}}, program->typed.dims);
    // x as a permuted view too: the executor makes it contiguous first.
    const Tensor view = x.permute({0, 2, 1}).compact().permute({0, 2, 1});
    for (const Tensor* in : std::vector<const Tensor*>{&x, &view}) {
      const auto fast =
          ss::runtime::run_graph(g, {{"x", *in}}, program->typed.dims, nullptr, &counting);
      check_same(reference, fast);  // `fast`: logsumexp's exps are float32's
    }
  }
  CHECK(counting.taken["reduce"] == 28);  // over the middle axis too (a global pool's)
  CHECK(counting.taken["softmax"] == 4);
  CHECK(counting.taken["log_softmax"] == 4);
}

TEST_CASE("the fast executor's other operations agree with the reference, and its errors") {
  // argmax, comparisons, integer arithmetic, a mean of bools, var and std,
  // cross-entropy, a gather and (in the gradient) its scatter, layer_norm,
  // fills and ranges.
  const auto program = ss::test::check_source_text(
      "dim C = 5\ndim V = 6\ndim E = 4\n\n"
      "fn f(x: [n C], labels: [n] Index[C], table: [V E], ids: [n] Index[V]) -> "
      "([n] Index[C], [n C] bool, [], [], [n], [n E], [n E], [C] i32, [n C]):\n"
      "    hits = argmax(x, over=C) == labels\n"
      "    return argmax(x, over=C), x > 0.5, mean(hits), cross_entropy(x * 1.5, labels, over=C), "
      "var(x, over=C) + std(x, over=C), table[ids] * 2.0, layer_norm(table[ids], over=E), "
      "(arange(5) + 7) % 3, x * 0.0 + 1.0\n"
      "fn g(table: [V E], ids: [n] Index[V], x: [n C], labels: [n] Index[C]) -> [] = "
      "sum(table[ids] * table[ids]) + cross_entropy(x, labels, over=C)\n");
  const auto& dims = program->typed.dims;
  const auto f = ss::lower::lower_function(program->typed, "f");
  ss::ir::Graph g = ss::lower::lower_function(program->typed, "g");
  std::vector<int> wrt;
  for (const int id : g.inputs)
    if (g.nodes[static_cast<std::size_t>(id)].type.elem.is_float()) wrt.push_back(id);
  g.outputs = ss::ir::append_gradients(g, g.outputs.at(0), wrt, dims);
  Tensor x = Tensor::zeros(DType::f32, {7, 5}), table = Tensor::zeros(DType::f32, {6, 4});
  for (std::int64_t k = 0; k < x.size(); ++k)  // ties (argmax takes the first) and a NaN
    x.set(k, k == 17 ? std::nan("") : std::round(4 * std::sin(0.9 * static_cast<double>(k))) / 4);
  for (std::int64_t k = 10; k < 15; ++k)
    x.set(k, k == 11 || k == 13 ? 2.0 : 0.5);  // a tie at the top
  for (std::int64_t k = 0; k < table.size(); ++k)
    table.set(k, std::cos(0.37 * static_cast<double>(k)));
  Tensor labels = Tensor::zeros(DType::i32, {7}), ids = Tensor::zeros(DType::i32, {7});
  for (std::int64_t k = 0; k < 7; ++k) {
    labels.set(k, static_cast<double>((k * 3) % 5));
    ids.set(k, static_cast<double>((k * 5) % 6));  // rows repeat: the scatter adds them up
  }
  const std::map<std::string, Tensor> inputs = {
      {"x", x}, {"labels", labels}, {"table", table}, {"ids", ids}};
  Counting counting;
  for (const ss::ir::Graph* graph : std::vector<const ss::ir::Graph*>{&f, &g}) {
    const auto reference = ss::runtime::run_graph(*graph, inputs, dims);
    const auto fast = ss::runtime::run_graph(*graph, inputs, dims, nullptr, &counting);
    check_same(reference, fast);  // `fast`: logsumexp's exps are float32's
  }
  for (const char* op : {"argmax", "binary", "reduce", "cross_entropy", "gather", "scatter_add",
                         "layer_norm", "arange", "constant"}) {
    CAPTURE(op);
    CHECK(counting.taken[op] > 0);
  }
  // An id out of its range is the reference's RangeError, at the same position.
  Tensor bad = ids;
  bad.set(4, 6);
  for (const ss::runtime::GraphExecutor* executor :
       std::vector<const ss::runtime::GraphExecutor*>{nullptr, &counting}) {
    try {
      ss::runtime::run_graph(f, {{"x", x}, {"labels", labels}, {"table", table}, {"ids", bad}},
                             dims, nullptr, executor);
      FAIL("no error");
    } catch (const ss::runtime::reference::RangeError& e) {
      CHECK(std::string(e.what()).find("6") != std::string::npos);
    }
  }
}

TEST_CASE("the fast executor's copies give the reference's bits: joins, pads, sorts, einops") {
  const auto program = ss::test::check_source_text(
      "dim C = 6\n\n"
      "fn f(x: [n C], k: [n C] i32) -> ([n C], [n C] Index[C], [n C], [C], [2 n C], [n C], "
      "[n C] bool, [n 3 C], [n 3], [n C] i32, [n 9]):\n"
      "    y = pad(x, over=C, before=1, after=2, value=-1.5)\n"
      "    z = reduce(rearrange(x, n (h w) -> n h w, h=2), n h w -> n w, max)\n"
      "    return sort(x, over=C), argsort(x, over=C), rms_norm(x, over=C), "
      "reduce(x, n c -> c, mean), stack(x, x * 2.0), where(x > 0.0, x, 0.5), "
      "not (x > 0.25), repeat(x, n c -> n r c, r=3), z, where(k > 2, k, 7), y\n");
  const auto g = ss::lower::lower_function(program->typed, "f");
  Tensor x = Tensor::zeros(DType::f32, {5, 6}), k = Tensor::zeros(DType::i32, {5, 6});
  for (std::int64_t i = 0; i < x.size(); ++i) {  // ties for the sorts, and a NaN
    x.set(i, i == 7 ? std::nan("") : std::round(3 * std::sin(1.7 * static_cast<double>(i))) / 2);
    k.set(i, static_cast<double>((i * 7) % 5));
  }
  Counting counting;
  const auto reference = ss::runtime::run_graph(g, {{"x", x}, {"k", k}}, program->typed.dims);
  const auto fast =
      ss::runtime::run_graph(g, {{"x", x}, {"k", k}}, program->typed.dims, nullptr, &counting);
  check_bits(reference, fast);
  for (const char* op : {"sort", "argsort", "rms_norm", "einops", "stack", "pad", "where"}) {
    CAPTURE(op);
    CHECK(counting.taken[op] > 0);
  }
  for (const auto& entry : ss::runtime::executor_nodes(*counting.fast)) {
    const auto& path = entry.first;  // named: clang 14 can't capture a binding
    const auto& count = entry.second;
    CHECK_MESSAGE(path.rfind("reference ", 0) != 0, path << ": " << count);
  }
}

TEST_CASE("Module::executor_stats says what ran the device functions") {
  const std::string text =
      "dim D = 4\n\nfn f(x: [b D], w: [D D]) -> [b D]:\n    return relu(x @ w) * 2.0 + x\n";
  const auto x = ss::Tensor::of(std::vector<float>(8, 0.5f), {2, 4});
  const auto w = ss::Tensor::of(std::vector<float>(16, 0.25f), {4, 4});
  const ss::Module fast = ss::Engine({.jit_library = ss::test::kJitPath}).load_source(text, "f.ss");
  REQUIRE(fast.call("f", {}, {{"x", x}, {"w", w}}));
  const auto s = fast.executor_stats();
  CHECK(s.executor == "fast");
  if (!std::string(ss::test::kJitPath).empty()) {
    CHECK(s.jit);
    CHECK(s.kernels_compiled + s.kernels_from_memory == 1);  // another test may have made it
    // relu, * 2.0 and + x in one kernel, the epilogue of x @ w (made inside it)
    CHECK(s.nodes.at("fused") == 4);
    CHECK(s.nodes.count("gemm") == 0);
  } else {
    CHECK(s.nodes.at("gemm") == 1);
  }
  const ss::Module reference =
      ss::Engine({.executor = ss::Executor::reference}).load_source(text, "f.ss");
  REQUIRE(reference.call("f", {}, {{"x", x}, {"w", w}}));
  CHECK(reference.executor_stats().executor == "reference");
  CHECK(reference.executor_stats().nodes.empty());
}

TEST_CASE("a weight prepacked when its value is made is the panels a product then reads") {
  Tensor w = Tensor::zeros(DType::f32, {64, 32});
  for (std::int64_t k = 0; k < w.size(); ++k) w.set(k, std::sin(0.1 * static_cast<double>(k)));
  // The key of a's @ w's panels (fast_contractions.cpp's resident_panels):
  // offset 0, w's row and column strides, k, n, float32.
  const ss::runtime::Buffer::DerivedKey key{0, 32, 1, 64, 32, 0};
  ss::runtime::fast::prepack(w, {});  // not frozen: a host's buffer is never packed
  bool made = false;
  w.buffer()->freeze();
  (void)w.buffer()->derived(key, [&] {
    made = true;
    return std::shared_ptr<const void>();  // kept only when not null
  });
  CHECK(made);
  ss::runtime::fast::prepack(w, {});
  made = false;
  (void)w.buffer()->derived(key, [&] {
    made = true;
    return std::shared_ptr<const void>();
  });
  CHECK_FALSE(made);  // found: prepack made the panels
  // The product with the panels gives the reference's bits' neighbours.
  Tensor a = Tensor::zeros(DType::f32, {8, 64});
  for (std::int64_t k = 0; k < a.size(); ++k) a.set(k, std::cos(0.07 * static_cast<double>(k)));
  ss::ir::Node n;
  n.op = ss::ir::Op::matmul;
  n.in = {0, 1};
  Tensor out;
  REQUIRE(ss::runtime::fast::matmul(n, out, {a, w}, {}));
  const Tensor want = ss::runtime::reference::matmul(a, w);
  for (std::int64_t k = 0; k < out.size(); ++k)
    CHECK(out.get(k) == doctest::Approx(want.get(k)).epsilon(1e-5));
}

TEST_CASE("a module's made model has its weights packed before its first call") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  const std::string digits = std::string(ss::test::kSourceDir) + "/examples/digits/digits.ss";
  ss::LoadOptions options;
  options.sinks["metrics"] = [](const ss::SinkRecord&) {};
  for (const auto executor : {ss::Executor::fast, ss::Executor::reference}) {
    ss::EngineOptions engine_options;
    engine_options.executor = executor;
    engine_options.jit_library = ss::test::kJitPath;
    const ss::Engine engine(engine_options);
    const ss::Module mod = engine.load_file(digits, options);
    REQUIRE(mod);
    const ss::Value m = mod.make("Mlp", {.seed = 0});
    // logits reads x @ m.w1 ([D H] = [64 128]): its panels, made already on
    // the fast executor (the reference packs nothing).
    const auto& fields = ss::ValueAccess::state(m)->current().value->fields;
    const ss::runtime::Buffer::DerivedKey key{0, 128, 1, 64, 128, 0};
    bool made = false;
    (void)fields.at("w1").buffer()->derived(key, [&] {
      made = true;
      return std::shared_ptr<const void>();
    });
    CHECK(made == (executor == ss::Executor::reference));
  }
}
