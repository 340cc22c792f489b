// cuDNN's convolutions (kernels/cudnn, cuda_conv_match, cuda_run_conv), on
// the stand-in cuDNN (tests/fakes/fake_cudnn.cpp, which computes the three
// passes on the host and refuses descriptors that don't chain):
// - the wrapper's calls are the language's conv (against the reference)
//   and its gradients (the adjoint identities <conv(x, w), dy> =
//   <x, dx(dy, w)> = <w, dw(x, dy)>);
// - its heuristics' choice follows the precision and --deterministic;
// - every pass the CUDA plan leaves unmade, in forward and gradient graphs,
//   is one call whose operands and result, permuted as cuda_conv_match
//   says, give the reference's value for the node (on the reference's own
//   values, on the host);
// - the CUDA executor on the stand-in driver runs those passes on cuDNN and
//   makes no window for them, and an unevenly padded conv (or every conv,
//   with SHAPESCRIPT_CUDNN=0) as a window and a GEMM. The stand-in driver's
//   kernels do nothing, so values there are the GPU's check (tests/gpu).
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <variant>
#include <vector>

#include "kernels/cuda_conv_match.hpp"
#include "kernels/cuda_executor.hpp"
#include "kernels/cuda_graph_run.hpp"
#include "kernels/cudnn.hpp"
#include "kernels/nvrtc.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/build_paths.hpp"
#include "support/checked_program.hpp"
#include "support/conv_programs.hpp"
#include "support/cuda_executors.hpp"
#include "support/fake_cuda.hpp"
#include "support/lowered_graphs.hpp"
#include "support/numerics.hpp"
#include "support/skip.hpp"

namespace {

using ss::cuda::ConvShape;
using ss::cuda::Cudnn;
using ss::runtime::Tensor;

ss::cuda::CUdeviceptr at(const std::vector<float>& v) {
  return reinterpret_cast<ss::cuda::CUdeviceptr>(v.data());
}

std::vector<float> made_up(std::size_t n, double phase) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(std::sin(0.73 * static_cast<double>(i) + phase));
  return v;
}

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

int last_algo() {
  void* lib = dlopen(ss::test::built::fake_cudnn, RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(lib);
  using Last = int (*)();
  const auto last = reinterpret_cast<Last>(dlsym(lib, "ss_fake_cudnn_last_algo"));
  const bool found = last != nullptr;
  REQUIRE(found);
  return last();
}

}  // namespace

TEST_CASE("cuDNN's three passes are the language's conv and its gradients, channels last") {
  std::string why;
  const auto dnn = Cudnn::open(ss::test::built::fake_cudnn, nullptr, &why);
  REQUIRE_MESSAGE(dnn, why);
  // Strides, a dilation and padding differing per axis, every size apart.
  const auto checked = ss::test::check_source_text(
      "fn f(x: [2 7 9 3], k: [3 2 3 4]) -> [2 4 9 4] = "
      "conv(x, k, over=[1 2], stride=[2 1], dilation=[1 2], padding=[1 1], out=[4 9])\n");
  const auto graphs = ss::test::lowered_graphs(*checked, false);
  REQUIRE(graphs.size() == 1);
  const auto in = ss::test::made_up_inputs(graphs[0].graph, {}, 4, 1.0);
  const Tensor want = ss::runtime::run_graph(graphs[0].graph, in, {})[0];
  ConvShape s;
  s.n = 2, s.h = 7, s.w = 9, s.c = 3, s.f = 4, s.kh = 3, s.kw = 2, s.oh = 4, s.ow = 9;
  s.stride[0] = 2, s.dilation[1] = 2, s.pad[0] = 1, s.pad[1] = 1;
  const Tensor& x_in = in.at("x");
  const Tensor& k_in = in.at("k");  // [kh kw c f]
  std::vector<float> x(static_cast<std::size_t>(x_in.size())), w(72), y(2 * 4 * 9 * 4, -9.0f);
  for (std::int64_t i = 0; i < x_in.size(); ++i)
    x[static_cast<std::size_t>(i)] = static_cast<float>(x_in.get(i));
  for (std::int64_t kh = 0; kh < 3; ++kh)  // to cuDNN's [f kh kw c]
    for (std::int64_t kw = 0; kw < 2; ++kw)
      for (std::int64_t c = 0; c < 3; ++c)
        for (std::int64_t f = 0; f < 4; ++f)
          w[static_cast<std::size_t>(((f * 3 + kh) * 2 + kw) * 3 + c)] =
              static_cast<float>(k_in.get(((kh * 2 + kw) * 3 + c) * 4 + f));
  std::vector<std::vector<float>> spaces;
  const auto workspace = [&](std::size_t bytes) {
    spaces.emplace_back((bytes + 3) / 4);
    return at(spaces.back());
  };
  using ss::cuda::cudnn_abi::kSuccess;
  REQUIRE(dnn->run(Cudnn::Pass::forward, s, ss::Precision::f32, false, at(x), at(w), at(y),
                   workspace) == kSuccess);
  REQUIRE(want.size() == static_cast<std::int64_t>(y.size()));
  for (std::size_t i = 0; i < y.size(); ++i)
    CHECK(y[i] == doctest::Approx(want.get(static_cast<std::int64_t>(i))).epsilon(1e-5));
  // The gradients, by their adjoint identities.
  const std::vector<float> dy = made_up(y.size(), 0.3);
  std::vector<float> dx(x.size(), -9.0f), dw(w.size(), -9.0f);
  REQUIRE(dnn->run(Cudnn::Pass::data, s, ss::Precision::f32, false, at(dy), at(w), at(dx),
                   workspace) == kSuccess);
  REQUIRE(dnn->run(Cudnn::Pass::filter, s, ss::Precision::f32, false, at(x), at(dy), at(dw),
                   workspace) == kSuccess);
  const double forward = dot(y, dy);
  CHECK(std::abs(forward) > 1.0);  // not a vacuous zero
  CHECK(dot(x, dx) == doctest::Approx(forward).epsilon(1e-5));
  CHECK(dot(w, dw) == doctest::Approx(forward).epsilon(1e-5));
}

TEST_CASE(
    "cuDNN's algorithm: no tensor-core math under f32, deterministic when asked, no huge "
    "workspace") {
  std::string why;
  const auto dnn = Cudnn::open(ss::test::built::fake_cudnn, nullptr, &why);
  REQUIRE_MESSAGE(dnn, why);
  ConvShape s;
  s.n = 1, s.h = 4, s.w = 4, s.c = 2, s.f = 3, s.kh = 3, s.kw = 3, s.oh = 4, s.ow = 4;
  s.pad[0] = s.pad[1] = 1;
  std::vector<float> x(32, 0.5f), w(54, 0.25f), y(48);
  std::size_t asked = 0;
  std::vector<float> space;
  const auto workspace = [&](std::size_t bytes) {
    asked = bytes;
    space.assign((bytes + 3) / 4, 0.0f);
    return at(space);
  };
  using ss::cuda::cudnn_abi::kNotSupported;
  using ss::cuda::cudnn_abi::kSuccess;
  // The stand-in's offers, best first: 5 (tensor-core math, deterministic),
  // 0 (1 GiB of workspace: past the cap), 3 (the descriptor's math, not
  // deterministic), 1 (deterministic, 4 KiB of workspace).
  struct Case {
    ss::Precision precision;
    bool deterministic;
    int algo;
  };
  for (const Case c : {Case{ss::Precision::f32, false, 3}, Case{ss::Precision::f32, true, 1},
                       Case{ss::Precision::tf32, false, 5}, Case{ss::Precision::tf32, true, 5}})
    for (const auto pass : {Cudnn::Pass::forward, Cudnn::Pass::data, Cudnn::Pass::filter}) {
      CAPTURE(static_cast<int>(c.precision));
      CAPTURE(c.deterministic);
      CAPTURE(static_cast<int>(pass));
      asked = 0;
      const auto b = pass == Cudnn::Pass::filter ? at(y) : at(w);
      const auto out = pass == Cudnn::Pass::forward ? at(y)
                       : pass == Cudnn::Pass::data  ? at(x)
                                                    : at(w);
      const auto a = pass == Cudnn::Pass::data ? at(y) : at(x);
      REQUIRE(dnn->run(pass, s, c.precision, c.deterministic, a, b, out, workspace) == kSuccess);
      CHECK(last_algo() == c.algo);
      CHECK(asked == (c.algo == 1 ? 4096u : 0u));
    }
  // bf16 isn't offered: the window and a bf16 GEMM run instead.
  CHECK(dnn->run(Cudnn::Pass::forward, s, ss::Precision::bf16, false, at(x), at(w), at(y),
                 workspace) == kNotSupported);
}

TEST_CASE("each convolution pass the CUDA plan leaves unmade is one cuDNN call, values and all") {
  // On the reference's values: the operands cuda_conv_match picks,
  // permuted as it says, through the wrapper to the stand-in cuDNN, then
  // permuted as it says, are the node's value, for every pass of every
  // graph (the executor does the same on the device).
  std::string why;
  const auto dnn = Cudnn::open(ss::test::built::fake_cudnn, nullptr, &why);
  REQUIRE_MESSAGE(dnn, why);
  const auto checked = ss::test::check_source_text(ss::test::kConvPrograms);
  const auto& dims = checked->typed.dims;
  std::int64_t total = 0;
  for (const bool gradients : {false, true})
    for (const auto& lowered : ss::test::lowered_graphs(*checked, gradients)) {
      const std::string function = lowered.function;  // clang 14 can't capture a binding
      CAPTURE(function);
      CAPTURE(gradients);
      const auto& g = lowered.graph;
      const auto in = ss::test::made_up_inputs(g, dims, 3, 1.2);
      const auto sizes = ss::runtime::bind_sizes(g, in, dims);
      std::vector<Tensor> values(g.nodes.size());
      for (std::size_t i = 0; i < g.nodes.size(); ++i)
        ss::runtime::run_reference_node(g, i, values, in, sizes, dims, nullptr);
      const auto plan = ss::cuda::detail::make_plan(g);
      std::int64_t found = 0;
      for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const auto& n = g.nodes[i];
        bool reads_unmade = false;
        for (std::size_t k = 0; k < n.in.size(); ++k)
          reads_unmade = reads_unmade || (plan->deferred[static_cast<std::size_t>(n.in[k])] &&
                                          (n.op == ss::ir::Op::einsum || k == 0));
        if (!reads_unmade) continue;
        const auto call = ss::cuda::match_conv(
            g, i, [&](int v) { return values[static_cast<std::size_t>(v)].shape(); });
        if (!call) continue;
        ++found;
        const Tensor a = values[static_cast<std::size_t>(call->a)].permute(call->a_order).compact();
        const Tensor b = values[static_cast<std::size_t>(call->b)].permute(call->b_order).compact();
        Tensor out = Tensor::zeros(ss::runtime::DType::f32, call->out_shape);
        std::vector<float> space;
        const auto status =
            dnn->run(call->pass, call->shape, ss::Precision::f32, false,
                     reinterpret_cast<ss::cuda::CUdeviceptr>(a.raw()),
                     reinterpret_cast<ss::cuda::CUdeviceptr>(b.raw()),
                     reinterpret_cast<ss::cuda::CUdeviceptr>(out.raw()), [&](std::size_t bytes) {
                       space.assign((bytes + 3) / 4, 0.0f);
                       return at(space);
                     });
        REQUIRE(status == ss::cuda::cudnn_abi::kSuccess);
        const Tensor got = call->out_order.empty() ? out : out.permute(call->out_order).compact();
        ss::test::check_agrees(got, values[i], "cuda", function + " node " + std::to_string(i));
      }
      CHECK(found == ss::test::cudnn_passes(function, gradients));
      total += found;
    }
  CHECK(total == 1 + 1 + 3 + 1 + 3 + 2 + 6);
}

TEST_CASE("the CUDA executor runs every convolution pass on cuDNN, or a window and a GEMM") {
  if (!std::holds_alternative<ss::nvrtc::Compiler>(ss::nvrtc::Compiler::open(""))) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  // The stand-in driver's kernels do nothing (so values aren't checked
  // here: the test above checks the calls'), its copies and the stand-in
  // cuDNN's passes are real.
  ss::test::NoopDevice device;
  setenv("SS_FAKE_CUDA_PATH", ss::test::built::fake_cuda, 1);
  const auto checked = ss::test::check_source_text(ss::test::kConvPrograms);
  std::string why;
  std::map<std::string, std::int64_t> moves;  // without cuDNN, per graph
  for (const bool with_cudnn : {false, true}) {
    CAPTURE(with_cudnn);
    setenv("SHAPESCRIPT_CUDNN", with_cudnn ? ss::test::built::fake_cudnn : "0", 1);
    const auto cuda = ss::test::cuda_executor_on(ss::test::built::fake_cuda, {}, ss::Precision::f32,
                                                 true, &why, false);
    unsetenv("SHAPESCRIPT_CUDNN");  // read when the executor opened its GPU
    REQUIRE_MESSAGE(cuda, why);
    const auto& dims = checked->typed.dims;
    for (const bool gradients : {false, true})
      for (const auto& lowered : ss::test::lowered_graphs(*checked, gradients)) {
        const std::string function = lowered.function;  // clang 14 can't capture a binding
        CAPTURE(function);
        CAPTURE(gradients);
        const auto& g = lowered.graph;
        const auto in = ss::test::made_up_inputs(g, dims, 3, 1.2);
        const std::int64_t before = ss::test::path_count(*cuda, "cudnn"),
                           windows = ss::test::path_count(*cuda, "moves");
        const auto got = ss::runtime::run_graph(g, in, dims, nullptr, cuda.get());
        CHECK(got.size() == g.outputs.size());
        const std::int64_t ran = ss::test::path_count(*cuda, "cudnn") - before;
        CHECK(ran == (with_cudnn ? ss::test::cudnn_passes(function, gradients) : 0));
        // A window (or a fold) is made only where cuDNN didn't take its
        // passes.
        std::int64_t made = 0;
        for (const auto& n : g.nodes)
          made += n.op == ss::ir::Op::window || n.op == ss::ir::Op::window_fold ? 1 : 0;
        const std::string key = function + (gradients ? " gradients" : "");
        const std::int64_t moved = ss::test::path_count(*cuda, "moves") - windows;
        if (!with_cudnn) {
          CHECK(made > 0);
          moves[key] = moved;
        } else {
          CHECK(moved == moves.at(key) - (ran > 0 ? made : 0));
        }
      }
  }
  unsetenv("SS_FAKE_CUDA_PATH");
}
