// cuBLASLt's bias and ReLU epilogues (kernels/cublas_lt): the calls it makes
// compute row-major relu(A B + bias) by cublasLt.h's column-major rules, on
// the stand-in cuBLASLt (tests/fakes/fake_cublas_lt.cpp, which computes
// them on the host and refuses layouts that don't chain), for shapes whose
// three sizes differ; and the CUDA executor's plan folds the regions that
// are a bias and a ReLU over a product only they read (digits' hidden
// layer) and a lone add of a bias to one (its logits). On a GPU the
// real cuBLASLt runs them within every graph's check (tests/gpu).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <variant>
#include <vector>

#include "kernels/cublas_lt.hpp"
#include "kernels/cuda_executor.hpp"
#include "kernels/cuda_graph_run.hpp"
#include "kernels/nvrtc.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/build_paths.hpp"
#include "support/checked_program.hpp"
#include "support/cuda_executors.hpp"
#include "support/fake_cuda.hpp"
#include "support/lowered_graphs.hpp"
#include "support/numerics.hpp"
#include "support/skip.hpp"

namespace {

ss::cuda::CUdeviceptr at(const std::vector<float>& v) {
  return reinterpret_cast<ss::cuda::CUdeviceptr>(v.data());
}

}  // namespace

TEST_CASE("cuBLASLt's epilogue GEMM is row-major relu(A B + bias), each column its bias") {
  std::string why;
  const auto lt = ss::cuda::CublasLt::open(ss::test::built::fake_cublas_lt, nullptr, &why);
  REQUIRE_MESSAGE(lt, why);
  const std::int64_t m = 5, n = 7, k = 3;
  std::vector<float> a(m * k), b(k * n), bias(n), c(m * n, -99.0f);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(1.0f + static_cast<float>(i));
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.5f * static_cast<float>(i));
  for (std::size_t i = 0; i < bias.size(); ++i) bias[i] = 0.25f * static_cast<float>(i) - 0.8f;
  for (const bool relu : {false, true}) {
    CAPTURE(relu);
    REQUIRE(lt->gemm_bias(m, n, k, at(a), at(b), at(bias), at(c), relu, ss::Precision::f32) ==
            ss::cuda::cublas_lt_abi::kSuccess);
    int negative = 0;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double want = bias[static_cast<std::size_t>(j)];
        for (std::int64_t p = 0; p < k; ++p)
          want += static_cast<double>(a[static_cast<std::size_t>(i * k + p)]) *
                  b[static_cast<std::size_t>(p * n + j)];
        negative += want < 0 ? 1 : 0;
        if (relu) want = std::max(want, 0.0);
        CHECK(c[static_cast<std::size_t>(i * n + j)] == doctest::Approx(want).epsilon(1e-5));
      }
    CHECK(negative > 3);  // the ReLU has something to do
  }
}

TEST_CASE("the CUDA plan folds a bias and ReLU over a product into the GEMM, and nothing else") {
  const auto checked = ss::test::check_source_file("examples/digits/digits.ss");
  int folded = 0, with_relu = 0, lone = 0, products = 0;
  for (const bool gradients : {false, true})
    for (const auto& lowered : ss::test::lowered_graphs(*checked, gradients)) {
      const auto& g = lowered.graph;
      const auto plan = ss::cuda::detail::make_plan(g);
      for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        products += g.nodes[i].op == ss::ir::Op::matmul ? 1 : 0;
        const auto& e = plan->epilogues[i];
        if (e.product < 0) continue;
        ++folded;
        with_relu += e.relu ? 1 : 0;
        // A bias alone is a kernel of no members (ir::plan_fusion), or none.
        const int region = plan->root_of[i];
        const std::size_t members =
            region < 0 ? 0 : plan->kernels[static_cast<std::size_t>(region)].members.size();
        lone += members == 0 ? 1 : 0;
        CHECK(members <= 1);
        CHECK(g.nodes[static_cast<std::size_t>(e.product)].op == ss::ir::Op::matmul);
        CHECK(g.nodes[static_cast<std::size_t>(e.bias)].type.axes.size() == 1);
        CHECK(plan->made_at_root[static_cast<std::size_t>(e.product)]);
      }
    }
  // The hidden layer's relu(x @ w1 + b1) and the logits' h @ w2 + b2 in
  // every graph: each of digits' `@` is a layer's (the gradients' products
  // by transposes are einsums, left to cuBLAS).
  CHECK(with_relu >= 2);
  CHECK(lone >= 2);
  CHECK(with_relu + lone == folded);
  CHECK(products == folded);
}

TEST_CASE("the CUDA executor runs a layer's bias and ReLU in cuBLASLt's epilogue, values and all") {
  if (!std::holds_alternative<ss::nvrtc::Compiler>(ss::nvrtc::Compiler::open(""))) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  // The stand-in driver's kernels do nothing, but its copies and the
  // stand-in cuBLASLt's GEMMs are real, and these functions are nothing
  // else: their results are the epilogue's own.
  ss::test::NoopDevice device;
  // The stand-in cuBLASLt waits on the stand-in driver's streams.
  setenv("SS_FAKE_CUDA_PATH", ss::test::built::fake_cuda, 1);
  setenv("SHAPESCRIPT_CUBLASLT", ss::test::built::fake_cublas_lt, 1);
  const auto checked = ss::test::check_source_text(
      "fn layer(x: [b 6], w: [6 5], c: [5]) -> [b 5]:\n"
      "    return relu(x @ w + c)\n"
      "fn logits(x: [b 6], w: [6 5], c: [5]) -> [b 5]:\n"
      "    return c + x @ w\n");
  std::string why;
  const auto cuda = ss::test::cuda_executor_on(ss::test::built::fake_cuda, {}, ss::Precision::f32,
                                               true, &why, false);
  unsetenv("SHAPESCRIPT_CUBLASLT");  // read when the executor opened its GPU
  REQUIRE_MESSAGE(cuda, why);
  const auto& dims = checked->typed.dims;
  std::int64_t folded = 0;
  for (const auto& lowered : ss::test::lowered_graphs(*checked, false)) {
    const std::string& function = lowered.function;  // named: clang 14 can't capture a binding
    const auto& g = lowered.graph;
    CAPTURE(function);
    const auto in = ss::test::made_up_inputs(g, dims, 4, 1.4);
    const auto want = ss::runtime::run_graph(g, in, dims);
    const auto got = ss::runtime::run_graph(g, in, dims, nullptr, cuda.get());
    REQUIRE(got.size() == 1);
    ss::test::check_agrees(got[0], want[0], "cuda", function);
    const std::int64_t now = ss::test::path_count(*cuda, "gemm epilogue");
    CHECK(now - folded == (function == "layer" ? 3 : 2));
    folded = now;
  }
  CHECK(folded == 5);
  unsetenv("SS_FAKE_CUDA_PATH");
}
