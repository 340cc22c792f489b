// Attention as one node (ir/attention.hpp): found in each form the
// language writes it in (scaled by a multiply on either side or a divide,
// or not; causal or not; any head layout; the einsums' operands in either
// order; one tensor for q, k and v), left alone where the chain's values
// are read elsewhere or its scale depends on the inputs; run by the fast
// executor as one kernel forward and backward (its `attention` path, which
// `run --stats` prints) within the `fast` row of the reference, which runs
// the composition the program wrote; the same bits for any thread count;
// each kernel of this CPU's instruction sets; gradients against finite
// differences.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ir/attention.hpp"
#include "runtime/fast/attention/fast_attention.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/attention_forms.hpp"
#include "support/checked_program.hpp"
#include "support/fast_executor.hpp"
#include "support/lowered_graphs.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"

namespace {

using ss::ir::Graph;
using ss::ir::Op;
using ss::runtime::DType;
using ss::runtime::Tensor;

void check_close(const Tensor& got, const Tensor& want, const std::string& what) {
  ss::test::check_agrees(got, want, "fast", what);
}

bool same_bits(const Tensor& a, const Tensor& b) {
  const Tensor x = a.compact(), y = b.compact();
  return x.shape() == y.shape() && x.dtype() == y.dtype() &&
         std::memcmp(x.raw(), y.raw(), static_cast<std::size_t>(x.size()) * 4) == 0;
}

std::int64_t attention_path(const ss::runtime::GraphExecutor& fast) {
  const auto nodes = ss::runtime::executor_nodes(fast);
  const auto it = nodes.find("attention");
  return it == nodes.end() ? 0 : it->second;
}

}  // namespace

TEST_CASE("attention is one node in each form the language writes it, and one kernel each way") {
  for (const auto& form : ss::test::kAttentionForms) {
    const std::string name = form.name;
    CAPTURE(name);
    const auto checked = ss::test::check_source_text(ss::test::attention_program(form));
    const auto forward = ss::test::lowered_graphs(*checked, false).at(0).graph;
    const auto backward = ss::test::lowered_graphs(*checked, true).at(0).graph;
    CHECK(ss::test::count_ops(forward, Op::attention) == (form.fused ? 1 : 0));
    CHECK(ss::test::count_ops(backward, Op::attention_grad) == (form.fused ? 1 : 0));
    for (const auto* g : {&forward, &backward}) {
      const auto in = ss::test::made_up_inputs(*g, checked->typed.dims, 3, 1.7);
      const auto want = ss::runtime::run_graph(*g, in, checked->typed.dims);
      std::vector<Tensor> first;
      for (const int threads : {1, 2}) {
        CAPTURE(threads);
        const auto fast = ss::test::make_fast_executor({.threads = threads});
        const Graph fresh = *g;  // a copy keeps no other executor's plan (nor its counts)
        const auto got =
            ss::runtime::run_graph(fresh, in, checked->typed.dims, nullptr, fast.get());
        REQUIRE(got.size() == want.size());
        for (std::size_t o = 0; o < got.size(); ++o) check_close(got[o], want[o], "output");
        // the fused kernels ran, each fused node on its path
        CHECK(attention_path(*fast) ==
              ss::test::count_ops(*g, Op::attention) + ss::test::count_ops(*g, Op::attention_grad));
        if (first.empty()) {
          first = got;
        } else {
          for (std::size_t o = 0; o < got.size(); ++o) CHECK(same_bits(got[o], first[o]));
        }
      }
    }
  }
}

TEST_CASE("tinylm's blocks take the fused attention inside their scan, forward and backward") {
  const auto checked = ss::test::check_source_file("examples/tinylm/tinylm.ss");
  const auto graphs = ss::test::lowered_graphs(*checked, false);
  int forward = 0, backward = 0;
  for (const auto& lowered : graphs) {
    forward += ss::test::count_ops(lowered.graph, Op::attention);
    backward += ss::test::count_ops(lowered.graph, Op::attention_grad);
  }
  CHECK(forward >= 2);   // forward and loss, at least
  CHECK(backward >= 1);  // step's gradient
}

TEST_CASE("each attention kernel this CPU has agrees with the composition") {
  const auto checked =
      ss::test::check_source_text(ss::test::attention_program(ss::test::kAttentionForms[0]));
  const auto& dims = checked->typed.dims;
  // The attention node of the forward graph and the attention_grad node of
  // the gradient graph, each alone in a graph of its inputs, run by each
  // kernel by name against the reference's run of its body.
  int found = 0;
  for (const bool gradients : {false, true}) {
    const auto g = ss::test::lowered_graphs(*checked, gradients).at(0).graph;
    for (const auto& n : g.nodes) {
      if (n.op != (gradients ? Op::attention_grad : Op::attention)) continue;
      ++found;
      const Graph single = ss::test::node_alone(g, n);
      auto values = ss::test::made_up_inputs(single, dims, 2, 1.3);
      values["in3"] = Tensor::scalar(DType::f32, 2.8);  // the scale, a divisor
      const Tensor want = ss::runtime::run_graph(single, values, dims).at(0);
      std::vector<Tensor> args;
      for (std::size_t k = 0; k < n.in.size(); ++k)
        args.push_back(values.at("in" + std::to_string(k)));
      for (const auto& kernel : ss::runtime::fast::attention_kernels()) {
        CAPTURE(kernel);
        Tensor got;
        const bool ran = gradients
                             ? ss::runtime::fast::attention_grad_with(
                                   kernel, n, args[0], args[1], args[2], &args[3], args[4], got, 2)
                             : ss::runtime::fast::attention_with(kernel, n, args[0], args[1],
                                                                 args[2], &args[3], got, 2);
        REQUIRE(ran);
        check_close(got, want, gradients ? "attention_grad" : "attention");
      }
    }
  }
  CHECK(found == 2);
  MESSAGE("attention kernels here: " << ss::runtime::fast::attention_kernels().size());
}

TEST_CASE("infinite scores leave the fused kernel to the composition, which gives its own answer") {
  const auto checked =
      ss::test::check_source_text(ss::test::attention_program(ss::test::kAttentionForms[1]));
  const auto g = ss::test::lowered_graphs(*checked, false).at(0).graph;
  auto in = ss::test::made_up_inputs(g, checked->typed.dims, 2, 1.0);
  in["q"].set(3, std::numeric_limits<double>::infinity());
  const auto want = ss::runtime::run_graph(g, in, checked->typed.dims);
  const auto fast = ss::test::make_fast_executor({.threads = 1});
  const auto got = ss::runtime::run_graph(g, in, checked->typed.dims, nullptr, fast.get());
  CHECK(attention_path(*fast) == 0);
  const auto nodes = ss::runtime::executor_nodes(*fast);
  CHECK(nodes.at("reference attention") == 1);
  check_close(got[0], want[0], "output");  // NaN where the reference has NaN
}

TEST_CASE("the fused attention's gradients match finite differences of the loss") {
  const auto checked = ss::test::check_source_text(
      "dim H = 2\ndim T = 9\ndim K = 4\n"
      "fn t(q: [b H T K], k: [b H T K], v: [b H T K], r: [b H T K]) -> []:\n"
      "    s = einsum(q, k, b h i d, b h j d -> b h i j) / sqrt(f32(K))\n"
      "    w = softmax(causal(s), over=-1)\n"
      "    return sum(einsum(w, v, b h i j, b h j d -> b h i d) * r)\n");
  const auto loss = ss::test::lowered_graphs(*checked, false).at(0).graph;
  const auto grads = ss::test::lowered_graphs(*checked, true).at(0).graph;
  const auto& dims = checked->typed.dims;
  const auto in = ss::test::made_up_inputs(loss, dims, 2, 1.5);
  const auto fast = ss::test::make_fast_executor({.threads = 1});
  const auto g = ss::runtime::run_graph(grads, in, dims, nullptr, fast.get());
  REQUIRE(attention_path(*fast) == 2);  // the value (d/dr) and the gradients
  const char* names[] = {"q", "k", "v"};
  for (std::size_t w = 0; w < 3; ++w) {
    const std::string name = names[w];
    CAPTURE(name);
    const Tensor& x = in.at(name);
    for (std::int64_t i = 0; i < x.size(); i += 5) {
      const auto at = [&](double delta) {
        auto moved = in;
        moved[name] = x.clone();
        moved[name].set(i, x.get(i) + delta);
        return ss::runtime::run_graph(loss, moved, dims)[0].get(0);
      };
      const double h = 1e-3, fd = (at(h) - at(-h)) / (2 * h);
      CHECK_MESSAGE(
          std::fabs(fd - g[w].get(i)) <= 2e-3 * (1 + std::fabs(fd)),
          name << "[" << i << "]: finite differences " << fd << ", gradient " << g[w].get(i));
    }
  }
}

TEST_CASE("under portable numerics every attention kernel gives the same bits, both passes") {
  // The portable numerics' kernels: AVX-512's and AVX2's where the CPU has
  // them, and four-wide with FMA (the scalar path), their exps and sums
  // the portable ones (runtime/fast/portable).
  std::vector<std::string> kernels;
  for (const auto& k : ss::runtime::fast::attention_kernels())
    if (k != "portable") kernels.push_back(k);
  kernels.push_back("fma4");
  if (kernels.size() < 3) MESSAGE("only " << kernels.size() << " kernels here to compare");
  for (const int form : {0, 1}) {
    const auto checked =
        ss::test::check_source_text(ss::test::attention_program(ss::test::kAttentionForms[form]));
    const auto& dims = checked->typed.dims;
    for (const bool gradients : {false, true}) {
      const auto g = ss::test::lowered_graphs(*checked, gradients).at(0).graph;
      for (const auto& n : g.nodes) {
        if (n.op != (gradients ? Op::attention_grad : Op::attention)) continue;
        const Graph single = ss::test::node_alone(g, n);
        auto values = ss::test::made_up_inputs(single, dims, 21, 1.3);
        std::vector<Tensor> args;
        for (std::size_t k = 0; k < n.in.size(); ++k)
          args.push_back(values.at("in" + std::to_string(k)));
        const Tensor* scale = n.in.size() == (gradients ? 5u : 4u) ? &args[3] : nullptr;
        std::vector<Tensor> got;
        for (const auto& kernel : kernels) {
          CAPTURE(kernel);
          CAPTURE(gradients);
          Tensor out;
          const bool ran =
              gradients
                  ? ss::runtime::fast::attention_grad_with(kernel, n, args[0], args[1], args[2],
                                                           scale, args.back(), out, 2, true)
                  : ss::runtime::fast::attention_with(kernel, n, args[0], args[1], args[2], scale,
                                                      out, 2, true);
          REQUIRE(ran);
          got.push_back(out);
          CHECK(same_bits(got.front(), out));
        }
      }
    }
  }
}
