// conv (1, 2 and 3 spatial axes; stride, padding, dilation, groups,
// depthwise, padding=same) and max_pool and avg_pool, written in the
// language, lowered and run: outputs and gradients against PyTorch's
// (tests/goldens/windows.txt, made by make_window_goldens.py), on the
// reference (the `golden` row) and the fast executor (the `fast` row against
// the reference), gradients against finite differences too.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include "ir/conv_epilogue.hpp"
#include "ir/fusion.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/fast/gemm/sgemm.hpp"
#include "runtime/fast/onednn_conv.hpp"
#include "runtime/reference/interpreter.hpp"
#include "shapescript/shapescript.hpp"
#include "support/checked_program.hpp"
#include "support/fast_executor.hpp"
#include "support/lowered_graphs.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Shape;
using ss::runtime::Tensor;

struct Case {
  std::string name, call;
  std::map<std::string, Tensor> tensors;  // x, k (conv), r, y, gx, gk (conv)
};

std::vector<Case> read_cases() {
  std::ifstream in(std::string(ss::test::kSourceDir) + "/tests/goldens/windows.txt");
  REQUIRE(in);
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("case ", 0) == 0) {
      cases.push_back({line.substr(5), {}, {}});
    } else if (line.rfind("call ", 0) == 0) {
      cases.back().call = line.substr(5);
    } else {
      std::istringstream s(line);
      std::string name, word;
      s >> name;
      Shape shape;
      while (s >> word && word != ":") shape.push_back(std::stoll(word));
      std::vector<double> values;
      double v = 0;
      while (s >> v) values.push_back(v);
      cases.back().tensors[name] = Tensor::from_values(DType::f32, shape, values);
    }
  }
  return cases;
}

std::string type_of(const Tensor& t) {
  std::string s = "[";
  for (std::size_t k = 0; k < t.shape().size(); ++k)
    s += (k ? " " : "") + std::to_string(t.shape()[k]);
  return s + "]";
}

// fn t(x, k, r) -> [] = sum(CALL * r): the gradient with respect to r is
// the call's output, those to x and k its gradients.
std::string program(const Case& c) {
  const bool conv = c.tensors.count("k") > 0;
  return "fn t(x: " + type_of(c.tensors.at("x")) +
         (conv ? ", k: " + type_of(c.tensors.at("k")) : std::string()) +
         ", r: " + type_of(c.tensors.at("r")) + ") -> [] = sum(" + c.call + " * r)\n";
}

void check_close(const Tensor& got, const Tensor& want, const char* row, const char* what) {
  ss::test::check_agrees(got, want, row, what);
}

}  // namespace

TEST_CASE("conv and pooling match PyTorch, forward and gradient, on both CPU executors") {
  const auto fast = ss::test::make_fast_executor({.threads = 2});
  const auto cases = read_cases();
  REQUIRE(cases.size() == 12);
  for (const auto& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    const auto checked = ss::test::check_source_text(program(c));
    const auto graphs = ss::test::lowered_graphs(*checked, true);
    REQUIRE(graphs.size() == 1);
    const auto& g = graphs[0].graph;
    std::map<std::string, Tensor> in = {{"x", c.tensors.at("x")}, {"r", c.tensors.at("r")}};
    const bool conv = c.tensors.count("k") > 0;
    if (conv) in["k"] = c.tensors.at("k");
    const auto reference = ss::runtime::run_graph(g, in, {});
    REQUIRE(reference.size() == (conv ? 3u : 2u));  // d/dx, (d/dk,) d/dr
    check_close(reference.back(), c.tensors.at("y"), "golden", "y");
    check_close(reference[0], c.tensors.at("gx"), "golden", "gx");
    if (conv) check_close(reference[1], c.tensors.at("gk"), "golden", "gk");
    const auto on_fast = ss::runtime::run_graph(g, in, {}, nullptr, fast.get());
    for (std::size_t o = 0; o < reference.size(); ++o)
      check_close(on_fast[o], reference[o], "fast", "fast executor's output");
  }
}

TEST_CASE("conv's and max_pool's gradients match finite differences of the loss") {
  const auto cases = read_cases();
  for (const auto& c : cases) {
    if (c.name != "conv2d groups 2" && c.name != "max_pool2d window 3 stride 2 padding 1" &&
        c.name != "conv3d")
      continue;
    const std::string name = c.name;
    CAPTURE(name);
    const auto checked = ss::test::check_source_text(program(c));
    const auto loss = ss::test::lowered_graphs(*checked, false).at(0).graph;
    const auto grads = ss::test::lowered_graphs(*checked, true).at(0).graph;
    std::map<std::string, Tensor> in = {{"x", c.tensors.at("x")}, {"r", c.tensors.at("r")}};
    if (c.tensors.count("k")) in["k"] = c.tensors.at("k");
    const auto g = ss::runtime::run_graph(grads, in, {});
    const Tensor& x = in.at("x");
    for (std::int64_t k = 0; k < x.size(); k += 7) {
      const auto at = [&](double delta) {
        auto moved = in;
        moved["x"] = x.clone();
        moved["x"].set(k, x.get(k) + delta);
        return ss::runtime::run_graph(loss, moved, {})[0].get(0);
      };
      const double h = 1e-3, fd = (at(h) - at(-h)) / (2 * h);
      CHECK_MESSAGE(std::fabs(fd - g[0].get(k)) <= 2e-3 * (1 + std::fabs(fd)),
                    "x[" << k << "]: finite differences " << fd << ", gradient " << g[0].get(k));
    }
  }
}

TEST_CASE("a max_pool's gradient goes to the first maximum of a window with ties, as PyTorch's") {
  // Windows of 2x2 over [1 2 4 1]: the first holds 1 1 / 1 1, the second
  // 0 2 / 2 0. PyTorch's max_pool2d sends each window's gradient to its
  // first maximum in row-major order: elements 0 and 3.
  const auto checked = ss::test::check_source_text(
      "fn t(x: [1 2 4 1], r: [1 1 2 1]) -> [] = sum(max_pool(x, over=[1 2], window=2, "
      "out=[1 2]) * r)\n");
  const auto g = ss::test::lowered_graphs(*checked, true).at(0).graph;
  const Tensor x = Tensor::from_values(DType::f32, {1, 2, 4, 1}, {1, 1, 0, 2, 1, 1, 2, 0});
  const Tensor r = Tensor::from_values(DType::f32, {1, 1, 2, 1}, {3, 5});
  const auto fast = ss::test::make_fast_executor({.threads = 2});
  for (const auto* executor : {static_cast<ss::runtime::GraphExecutor*>(nullptr), fast.get()}) {
    const auto out = ss::runtime::run_graph(g, {{"x", x}, {"r", r}}, {}, nullptr, executor);
    CHECK(out[0].values() == std::vector<double>{3, 0, 0, 5, 0, 0, 0, 0});
    CHECK(out[1].values() == std::vector<double>{1, 2});  // d/dr: the maxima
  }
}

TEST_CASE("conv and pooling on several devices: per example off the batch axis, E1801 along it") {
  const ss::Engine engine;
  const std::string head = "devices cpu[0 1]\ndim D = 4\ndata R:\n    x: [6 D]\n";
  CHECK(engine
            .check_source(head + "fn f(batch: [b] R) -> [] = sum(max_pool(batch.x, over=[1], "
                                 "window=2, out=[3]))\n",
                          "t.ss")
            .empty());
  const auto along = engine.check_source(
      head + "fn f(batch: [b] R) -> [] = sum(avg_pool(batch.x, over=[0], window=1))\n", "t.ss");
  REQUIRE(along.size() == 1);
  CHECK(along[0].code == "E1801");
}

TEST_CASE("a conv over channels-last images agrees on the fast executor, chunk by chunk") {
  // 16 channels, 3x3: the fast executor makes each chunk of images' windows
  // [window, channels] (a copy of the channels per window element) and
  // reorders the kernel's rows, and for the kernel's gradient the result's
  // columns; 6 images of 32x32 make 6 chunks.
  const auto checked = ss::test::check_source_text(
      "fn t(x: [6 32 32 16], k: [3 3 16 5], r: [6 32 32 5]) -> [] = "
      "sum(conv(x, k, over=[1 2], padding=1) * r)\n");
  const auto graphs = ss::test::lowered_graphs(*checked, true);
  REQUIRE(graphs.size() == 1);
  std::map<std::string, Tensor> in;
  for (const auto& [name, shape] : std::vector<std::pair<std::string, ss::runtime::Shape>>{
           {"x", {6, 32, 32, 16}}, {"k", {3, 3, 16, 5}}, {"r", {6, 32, 32, 5}}}) {
    Tensor t = Tensor::zeros(ss::runtime::DType::f32, shape);
    for (std::int64_t i = 0; i < t.size(); ++i)
      t.set(i, std::sin(0.37 * static_cast<double>(i) + static_cast<double>(name[0])));
    in[name] = t;
  }
  const auto reference = ss::runtime::run_graph(graphs[0].graph, in, {});
  for (const int threads : {1, 2}) {
    CAPTURE(threads);
    const auto fast = ss::test::make_fast_executor({.threads = threads});
    const auto got = ss::runtime::run_graph(graphs[0].graph, in, {}, nullptr, fast.get());
    REQUIRE(got.size() == reference.size());
    for (std::size_t o = 0; o < got.size(); ++o)
      check_close(got[o], reference[o], "fast", "fast executor's output");
  }
}

namespace {

// Whether oneDNN's direct convolutions run here (else a note why not).
bool onednn_here(const char* instead) {
  const std::string status = ss::runtime::fast::onednn_status();
  const bool onednn =
      status.rfind("available, ", 0) == 0 && status.find("no direct") == std::string::npos;
  if (!onednn) MESSAGE("oneDNN skipped (" << status << "): " << instead);
  return onednn;
}

// Each graph on the fast executor, 1 and 2 threads, against the reference
// (the `fast` row) and against itself run again (the same bits);
// `calls(i, n)` checks graph i's n oneDNN convolution calls.
void check_fast_convs(const std::vector<ss::test::LoweredGraph>& graphs,
                      const std::function<void(std::size_t, std::int64_t)>& calls) {
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    const auto& g = graphs[i];
    CAPTURE(g.function);
    CAPTURE(i);
    const auto in = ss::test::made_up_inputs(g.graph, {});
    const auto reference = ss::runtime::run_graph(g.graph, in, {});
    for (const int threads : {1, 2}) {
      CAPTURE(threads);
      const auto fast = ss::test::make_fast_executor({.threads = threads});
      const std::int64_t before = ss::runtime::fast::onednn_conv_calls();
      const auto got = ss::runtime::run_graph(g.graph, in, {}, nullptr, fast.get());
      calls(i, ss::runtime::fast::onednn_conv_calls() - before);
      REQUIRE(got.size() == reference.size());
      for (std::size_t o = 0; o < got.size(); ++o)
        check_close(got[o], reference[o], "fast", "fast executor's output");
      const auto again = ss::runtime::run_graph(g.graph, in, {}, nullptr, fast.get());
      for (std::size_t o = 0; o < got.size(); ++o)
        CHECK(std::memcmp(again[o].raw(), got[o].raw(),
                          static_cast<std::size_t>(got[o].size()) * 4) == 0);
    }
  }
}

}  // namespace

TEST_CASE(
    "a conv's forward and kernel gradient run on oneDNN where it is, agreeing with the reference") {
  // Strides, dilations, an even kernel's uneven padding (same), mixed
  // settings per axis, 1 and 16 channels; on 1 and 2 threads (7 and 5
  // images: parts of unequal sizes). Each loss's graph runs the forward on
  // oneDNN; its gradient graph (dx, dk, dr) the three passes.
  const auto checked = ss::test::check_source_text(
      "fn strided(x: [7 9 11 16], k: [3 3 16 8], r: [7 5 6 8]) -> [] = "
      "sum(conv(x, k, over=[1 2], stride=2, padding=1, out=[5 6]) * r)\n"
      "fn dilated(x: [5 10 10 1], k: [3 3 1 4], r: [5 8 8 4]) -> [] = "
      "sum(conv(x, k, over=[1 2], dilation=2, padding=1, out=[8 8]) * r)\n"
      "fn same_even(x: [5 7 8 16], k: [2 4 16 3], r: [5 7 8 3]) -> [] = "
      "sum(conv(x, k, over=[1 2], padding=same) * r)\n"
      "fn mixed(x: [7 12 9 16], k: [3 2 16 8], r: [7 4 5 8]) -> [] = "
      "sum(conv(x, k, over=[1 2], stride=[2 2], padding=[0 1], dilation=[2 1], out=[4 5]) * r)\n");
  REQUIRE(checked);
  auto graphs = ss::test::lowered_graphs(*checked);
  for (auto& g : ss::test::lowered_graphs(*checked, true)) graphs.push_back(std::move(g));
  REQUIRE(graphs.size() == 8);
  const bool onednn = onednn_here("the im2col GEMM ran instead");
  check_fast_convs(graphs, [&](std::size_t i, std::int64_t calls) {
    // A forward once; a gradient graph its forward (for dr), the kernel's
    // gradient and the input's (the fold of an einsum, left unmade), all
    // three for a plain shape, at least one where oneDNN offers only its
    // im2col GEMM for a pass (the mixed strides and dilations).
    if (!onednn)
      CHECK(calls == 0);
    else if (i < 4)
      CHECK(calls == 1);
    else if (graphs[i].function == "same_even")
      CHECK(calls == 3);
    else
      CHECK(calls >= 1);
  });
}

TEST_CASE("a 3x3 stride-1 conv of 14x14 pixels or more runs on oneDNN's Winograd, within the row") {
  // F(2x2, 3x3) or F(4x4, 3x3) (oneDNN picks) on AVX-512 CPUs, the images
  // reordered into its blocked layout and back, the program's [kh kw c f]
  // kernel through [f c kh kw]; a layer's bias and ReLU its post-ops.
  const auto checked = ss::test::check_source_text(
      "fn tail(x: [2 16 16 32], k: [3 3 32 16], b: [16]) -> [2 16 16 16] = "
      "relu(conv(x, k, over=[1 2], padding=1) + b)\n"
      "fn batch(x: [8 14 14 16], k: [3 3 16 32]) -> [8 14 14 32] = "
      "conv(x, k, over=[1 2], padding=1)\n");
  REQUIRE(checked);
  const auto graphs = ss::test::lowered_graphs(*checked);
  REQUIRE(graphs.size() == 2);
  const bool onednn = onednn_here("the im2col GEMM ran instead");
  const std::string status = ss::runtime::fast::onednn_status();
  if (onednn && status.find("wino") == std::string::npos)
    MESSAGE("oneDNN has no Winograd convolution on this CPU: " << status);
  check_fast_convs(graphs,
                   [&](std::size_t, std::int64_t calls) { CHECK(calls == (onednn ? 1 : 0)); });
}

TEST_CASE(
    "a grouped conv's forward runs on oneDNN as one convolution, agreeing with the reference") {
  // Depthwise (groups = channels, a multiplier of 2), strided and padded,
  // and four groups of 4 channels each; the window, the splits, the
  // batched einsum and the join left unmade, the join running oneDNN's
  // grouped convolution once. The gradient graphs (no grouped pass on
  // oneDNN) run the chain's nodes.
  const auto checked = ss::test::check_source_text(
      "fn depthwise(x: [3 9 10 8], k: [3 3 1 16], r: [3 5 5 16]) -> [] = "
      "sum(conv(x, k, over=[1 2], stride=2, padding=1, groups=8, out=[5 5]) * r)\n"
      "fn four(x: [2 6 7 16], k: [3 3 4 8], r: [2 6 7 8]) -> [] = "
      "sum(conv(x, k, over=[1 2], padding=1, groups=4, out=[6 7]) * r)\n");
  REQUIRE(checked);
  auto graphs = ss::test::lowered_graphs(*checked);
  for (auto& g : ss::test::lowered_graphs(*checked, true)) graphs.push_back(std::move(g));
  REQUIRE(graphs.size() == 4);
  const bool onednn = onednn_here("the chain's own nodes ran instead");
  check_fast_convs(graphs, [&](std::size_t i, std::int64_t calls) {
    if (!onednn) CHECK(calls == 0);
    if (onednn && i < 2) CHECK(calls == 1);
  });
}

TEST_CASE(
    "a conv's bias and ReLU or clip run inside oneDNN's convolution, agreeing with the reference") {
  // A layer's tail (a bias, then ReLU, maximum(x, 0) or a clip to [0, 6]:
  // ReLU6) is the convolution's epilogue, one oneDNN call with its bias and
  // post-op, plain or grouped; a tail that adds a residual too runs as its
  // own kernel after the convolution. Each agrees with the reference
  // (without oneDNN: the convolution, then the kernel).
  const auto checked = ss::test::check_source_text(
      "fn relu_tail(x: [3 8 9 16], k: [3 3 16 8], b: [8]) -> [3 8 9 8] = "
      "relu(conv(x, k, over=[1 2], padding=1) + b)\n"
      "fn max_tail(x: [3 8 9 16], k: [3 3 16 8], b: [8]) -> [3 8 9 8] = "
      "maximum(b + conv(x, k, over=[1 2], padding=1), 0.0)\n"
      "fn relu6_grouped(x: [2 9 10 8], k: [3 3 1 8], b: [8]) -> [2 5 5 8] = "
      "minimum(maximum(conv(x, k, over=[1 2], stride=2, padding=1, groups=8, out=[5 5]) + b, "
      "0.0), 6.0)\n"
      "fn residual(x: [3 8 9 16], k: [3 3 16 16], b: [16]) -> [3 8 9 16] = "
      "relu(conv(x, k, over=[1 2], padding=1) + b + x)\n");
  REQUIRE(checked);
  const auto graphs = ss::test::lowered_graphs(*checked);
  REQUIRE(graphs.size() == 4);
  const bool onednn = onednn_here("the convolution ran, then the kernel");
  using Activation = ss::ir::ConvEpilogue::Activation;
  const std::map<std::string, Activation> tails = {{"relu_tail", Activation::relu},
                                                   {"max_tail", Activation::relu},
                                                   {"relu6_grouped", Activation::clip}};
  for (const auto& g : graphs) {
    CAPTURE(g.function);
    // The plan: the tail's kernel found as the convolution's epilogue.
    const auto kernels = ss::ir::plan_fusion(g.graph);
    REQUIRE(kernels.size() == 1);
    const auto deferral = ss::ir::plan_conv_deferral(g.graph, [](std::size_t) { return false; });
    const auto e =
        ss::ir::conv_epilogue(g.graph, kernels[0], deferral, ss::ir::use_counts(g.graph));
    if (const auto it = tails.find(g.function); it != tails.end()) {
      CHECK(e.conv >= 0);
      CHECK(e.bias >= 0);
      CHECK(e.activation == it->second);
      if (e.activation == Activation::clip) CHECK((e.lo == 0.0f && e.hi == 6.0f));
    } else {
      CHECK(e.conv < 0);
    }
    auto in = ss::test::made_up_inputs(g.graph, {});
    // A bias that makes some outputs negative and some above 6.
    for (auto& [name, t] : in)
      if (name == "b")
        for (std::int64_t i = 0; i < t.size(); ++i) t.set(i, 4.0 * std::sin(1.7 * i));
    const auto reference = ss::runtime::run_graph(g.graph, in, {});
    for (const int threads : {1, 2}) {
      CAPTURE(threads);
      const auto fast = ss::test::make_fast_executor({.threads = threads});
      const std::int64_t before = ss::runtime::fast::onednn_conv_calls();
      const auto got = ss::runtime::run_graph(g.graph, in, {}, nullptr, fast.get());
      CHECK(ss::runtime::fast::onednn_conv_calls() - before == (onednn ? 1 : 0));
      REQUIRE(got.size() == 1);
      check_close(got[0], reference[0], "fast", "fast executor's output");
      // Every element the tail clipped is exactly its bound.
      std::int64_t zeros = 0;
      for (std::int64_t i = 0; i < got[0].size(); ++i) zeros += got[0].get(i) == 0.0;
      CHECK(zeros > 0);
    }
  }
}

TEST_CASE("a conv's forward with bfloat16 inputs runs on oneDNN within the fast-bf16 row") {
  // --precision bf16 on a CPU with AVX512-BF16: oneDNN's convolution reads
  // the images and the kernel rounded to bfloat16 (AMX tiles where the CPU
  // has them), sums in float32; plain and grouped, with a ReLU tail. The
  // gradients stay on our GEMM's bfloat16 kernels.
  if (!ss::gemm::bf16_supported()) {
    ss::test::skip("this CPU has no AVX512-BF16: bf16 asked runs float32");
    return;
  }
  const auto checked = ss::test::check_source_text(
      "fn plain(x: [3 12 11 32], k: [3 3 32 16], b: [16]) -> [3 12 11 16] = "
      "relu(conv(x, k, over=[1 2], padding=1) + b)\n"
      "fn grouped(x: [2 9 10 32], k: [3 3 1 32]) -> [2 5 5 32] = "
      "conv(x, k, over=[1 2], stride=2, padding=1, groups=32, out=[5 5])\n");
  REQUIRE(checked);
  const auto graphs = ss::test::lowered_graphs(*checked);
  if (!onednn_here("skipped")) {
    ss::test::skip("no oneDNN here");
    return;
  }
  for (const auto& g : graphs) {
    CAPTURE(g.function);
    const auto in = ss::test::made_up_inputs(g.graph, {});
    const auto reference = ss::runtime::run_graph(g.graph, in, {});
    const auto fast = ss::test::make_fast_executor({.threads = 1, .bf16 = true});
    const std::int64_t before = ss::runtime::fast::onednn_conv_calls();
    const auto got = ss::runtime::run_graph(g.graph, in, {}, nullptr, fast.get());
    CHECK(ss::runtime::fast::onednn_conv_calls() - before == 1);
    check_close(got[0], reference[0], "fast-bf16", "bfloat16 convolution");
    // Rounded inputs: not float32's sums (outside the fast row somewhere).
    const auto f32 = ss::test::make_fast_executor({.threads = 1});
    const auto exact = ss::runtime::run_graph(g.graph, in, {}, nullptr, f32.get());
    CHECK(std::memcmp(exact[0].raw(), got[0].raw(), static_cast<std::size_t>(got[0].size()) * 4) !=
          0);
    const auto again = ss::runtime::run_graph(g.graph, in, {}, nullptr, fast.get());
    CHECK(std::memcmp(again[0].raw(), got[0].raw(), static_cast<std::size_t>(got[0].size()) * 4) ==
          0);
  }
}

TEST_CASE("max_pool is one node each way, run in one pass by the fast executor, any thread count") {
  // Overlapping windows (3 wide, stride 1, padded), so the gradient adds
  // into shared places; channels last (a run of 5) and, in the second
  // program, the last axis windowed too (runs of one).
  for (const char* source :
       {"fn t(x: [4 7 6 5], r: [4 7 6 5]) -> [] = sum(max_pool(x, over=[1 2], window=3, "
        "stride=1, padding=1, out=[7 6]) * r)\n",
        "fn t(x: [4 9 8], r: [4 4 8], s: [4 4 4]) -> [] = sum(max_pool(x, over=[1], window=3, "
        "stride=2, out=[4]) * r) + sum(max_pool(x, over=[1 2], window=2, out=[4 4]) * s)\n"}) {
    CAPTURE(source);
    const auto checked = ss::test::check_source_text(source);
    auto g = ss::test::lowered_graphs(*checked, true).at(0).graph;
    int pools = 0, grads = 0;
    for (const auto& n : g.nodes) {
      pools += n.op == ss::ir::Op::max_pool;
      grads += n.op == ss::ir::Op::max_pool_grad;
      CHECK(n.op != ss::ir::Op::window);  // in the bodies only
    }
    CHECK(pools >= 1);
    CHECK(grads == pools);
    auto in = ss::test::made_up_inputs(g, {}, 1, 1.0);
    // ties: whole rows of equal values, so the first maximum decides
    Tensor& x = in.at("x");
    for (std::int64_t k = 0; k < x.size(); k += 3) x.set(k, 0.25);
    const auto reference = ss::runtime::run_graph(g, in, {});
    std::vector<Tensor> first;
    for (const int threads : {1, 2}) {
      CAPTURE(threads);
      const auto fast = ss::test::make_fast_executor({.threads = threads});
      const ss::ir::Graph fresh = g;  // a copy keeps no other executor's plan
      const auto got = ss::runtime::run_graph(fresh, in, {}, nullptr, fast.get());
      const auto nodes = ss::runtime::executor_nodes(*fast);
      CHECK(nodes.count("reference max_pool") == 0);
      CHECK(nodes.count("reference max_pool_grad") == 0);
      CHECK(nodes.count("reference window") == 0);
      REQUIRE(got.size() == reference.size());
      for (std::size_t o = 0; o < got.size(); ++o) {
        check_close(got[o], reference[o], "fast", "output");
        if (threads == 1) continue;
        const Tensor a = got[o].compact(), b = first[o].compact();
        CHECK(std::memcmp(a.raw(), b.raw(), static_cast<std::size_t>(a.size()) * 4) == 0);
      }
      if (threads == 1) first = got;
    }
  }
}
