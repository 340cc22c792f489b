// The fused attention kernels on CUDA (kernels/cuda_attention.cuh):
// - each kernel at each head width compiles with NVRTC for sm_90, float32
//   alone (no .f64 in its PTX);
// - the same CUDA C, compiled here for the host and run on the CPU
//   (support/cuda_on_host.hpp: a block's threads as std::threads), agrees
//   with the reference's composition under the `cuda` row, forward and
//   backward, for every form of tests/support/attention_forms.hpp that
//   fuses, at each head width, with positions left over for the grid's
//   loop, and with an infinite or NaN input (NaN where the composition has
//   it, forward and backward);
// - the CUDA executor (on the stand-in driver) launches them for every
//   attention node, one kernel forward and two backward, on its
//   `attention` path; a head wider than 128, or
//   SHAPESCRIPT_ATTENTION_KERNEL=0, leaves the node to its composition.
// On a GPU the executor's attention is checked with everything else
// (tests/gpu).
#include <doctest/doctest.h>

#include <cstddef>
#include <limits>
#include <optional>
#include <variant>

#include "kernels/cuda_attention.hpp"
#include "kernels/cuda_executor.hpp"
#include "kernels/nvrtc.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/attention_forms.hpp"
#include "support/build_paths.hpp"
#include "support/checked_program.hpp"
#include "support/cuda_executors.hpp"
#include "support/cuda_on_host.hpp"
#include "support/fake_cuda.hpp"
#include "support/lowered_graphs.hpp"
#include "support/numerics.hpp"
#include "support/skip.hpp"

// The kernels themselves, for the host.
#include "kernels/cuda_attention.cuh"
SS_ATTENTION_FORWARD(32)
SS_ATTENTION_FORWARD(64)
SS_ATTENTION_FORWARD(128)
SS_ATTENTION_DQ(32)
SS_ATTENTION_DQ(64)
SS_ATTENTION_DQ(128)
SS_ATTENTION_DKV(32)
SS_ATTENTION_DKV(64)
SS_ATTENTION_DKV(128)

namespace {

using ss::cuda::AttentionArgs;
using ss::cuda::AttentionKernel;
using ss::ir::Graph;
using ss::ir::Op;
using ss::runtime::DType;
using ss::runtime::Tensor;

// The host's struct and the kernels' are one layout.
#define SS_SAME_FIELD(f) static_assert(offsetof(AttentionArgs, f) == offsetof(SsAttentionArgs, f))
static_assert(sizeof(AttentionArgs) == sizeof(SsAttentionArgs));
static_assert(ss::cuda::kAttentionRows == kSsRows, "the launches' block is the kernels' rows");
SS_SAME_FIELD(positions);
SS_SAME_FIELD(o_e);
SS_SAME_FIELD(gv_e);
SS_SAME_FIELD(size);
SS_SAME_FIELD(gv_b);
SS_SAME_FIELD(batches);
SS_SAME_FIELD(divide);

struct Entries {
  int width;
  decltype(&ss_attention_forward_32) forward;
  decltype(&ss_attention_dq_32) dq;
  decltype(&ss_attention_dkv_32) dkv;
};
const Entries kEntries[] = {
    {32, ss_attention_forward_32, ss_attention_dq_32, ss_attention_dkv_32},
    {64, ss_attention_forward_64, ss_attention_dq_64, ss_attention_dkv_64},
    {128, ss_attention_forward_128, ss_attention_dq_128, ss_attention_dkv_128},
};

const float* floats(const Tensor& t) {
  return static_cast<const float*>(t.raw());
}

unsigned blocks(long long rows) {
  return static_cast<unsigned>((rows + ss::cuda::kAttentionRows - 1) / ss::cuda::kAttentionRows);
}

// Runs node n (attention or attention_grad) by the kernels on the host, as
// the executor launches them (kernels/cuda_run_attention.cpp), its grid's
// y at most `most_y` (the rest of the positions go round its loop).
// Returns the width the node took.
int run_on_host(const ss::ir::Node& n, const std::vector<Tensor>& in, Tensor& out,
                unsigned most_y = 65535) {
  const bool grads = n.op == Op::attention_grad;
  const Tensor *scale = in.size() == (grads ? 5u : 4u) ? &in[3] : nullptr,
               *dout = grads ? &in.back() : nullptr;
  ss::runtime::fast::attn::Bound b;
  REQUIRE(b.bind(n, in[0], in[1], in[2]));
  if (dout) REQUIRE(b.bind_grads(in[0], in[1], in[2], *dout));
  const auto launch = ss::cuda::attention_launch(b);
  REQUIRE(launch);
  SsAttentionArgs a;
  std::memcpy(&a, &launch->args, sizeof a);
  const Entries* entries = nullptr;
  for (const auto& e : kEntries)
    if (e.width == launch->width) entries = &e;
  REQUIRE(entries);
  const unsigned gy = static_cast<unsigned>(std::min<long long>(a.positions, most_y));
  const float *q = floats(in[0]), *k = floats(in[1]), *v = floats(in[2]),
              *s = scale ? floats(*scale) : nullptr;
  const unsigned rows = ss::cuda::kAttentionRows;
  if (!grads) {
    out = Tensor::zeros(DType::f32, b.out_shape);
    auto* o = static_cast<float*>(out.raw());
    ss::test::launch_on_host(blocks(a.ti), gy, rows, [&] { entries->forward(q, k, v, s, o, a); });
    return launch->width;
  }
  auto shape = in[0].shape();
  shape.insert(shape.begin(), 3);
  out = Tensor::zeros(DType::f32, shape);
  std::vector<float> stats(static_cast<std::size_t>(a.positions * a.ti * 2 + a.positions));
  auto* dq = static_cast<float*>(out.raw());
  float *dk = dq + b.part_size, *dv = dk + b.part_size;
  const float* g = floats(*dout);
  ss::test::launch_on_host(blocks(a.ti), gy, rows,
                           [&] { entries->dq(q, k, v, s, g, dq, stats.data(), a); });
  ss::test::launch_on_host(blocks(a.tj), gy, rows,
                           [&] { entries->dkv(q, k, v, s, g, stats.data(), dk, dv, a); });
  return launch->width;
}

// Each attention or attention_grad node of a form's graphs, alone, run by
// the kernels against the reference's run of it (its body), on inputs of
// about `scale`; `poison`, where set, goes into one element of q.
// Returns the widths taken.
std::vector<int> check_form(const ss::test::AttentionForm& form, unsigned most_y = 65535,
                            std::optional<double> poison = std::nullopt, double scale = 1.3) {
  const auto checked = ss::test::check_source_text(ss::test::attention_program(form));
  const auto& dims = checked->typed.dims;
  std::vector<int> widths;
  for (const bool gradients : {false, true}) {
    const auto g = ss::test::lowered_graphs(*checked, gradients).at(0).graph;
    for (const auto& n : g.nodes) {
      if (n.op != Op::attention && n.op != Op::attention_grad) continue;
      const std::string op = ss::ir::op_name(n.op);
      CAPTURE(op);
      const Graph single = ss::test::node_alone(g, n);
      auto values = ss::test::made_up_inputs(single, dims, 3, scale);
      if (poison) values["in0"].set(5, *poison);
      const Tensor want = ss::runtime::run_graph(single, values, dims).at(0);
      std::vector<Tensor> args;
      for (std::size_t k = 0; k < n.in.size(); ++k)
        args.push_back(values.at("in" + std::to_string(k)));
      Tensor got;
      widths.push_back(run_on_host(n, args, got, most_y));
      ss::test::check_agrees(got, want, "cuda", op);
    }
  }
  return widths;
}

const ss::nvrtc::Compiler* compiler() {
  static auto opened = ss::nvrtc::Compiler::open("");
  return std::get_if<ss::nvrtc::Compiler>(&opened);
}

}  // namespace

TEST_CASE("the attention kernels compile with NVRTC for sm_90, in float32 alone") {
  const auto* nvrtc = compiler();
  if (!nvrtc) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  for (const auto kernel : {AttentionKernel::forward, AttentionKernel::dq, AttentionKernel::dkv})
    for (const int width : ss::cuda::kAttentionWidths) {
      const std::string name = ss::cuda::attention_kernel_name(kernel, width);
      CAPTURE(name);
      const auto result = nvrtc->compile(ss::cuda::attention_source(kernel, width), "attention.cu",
                                         {.sm = 90, .cubin = false}, {"--fmad=false"});
      if (const auto* failure = std::get_if<ss::nvrtc::Failure>(&result))
        FAIL(failure->message << "\n" << failure->log);
      const auto& ptx = std::get<ss::nvrtc::Output>(result).code;
      CHECK(ptx.find(".entry " + name + "(") != std::string::npos);
      CHECK(ptx.find(".f64") == std::string::npos);
    }
}

TEST_CASE("the attention kernels, run on the host, agree with the composition in every form") {
  int fused = 0;
  for (const auto& form : ss::test::kAttentionForms) {
    const std::string name = form.name;
    CAPTURE(name);
    const auto widths = check_form(form);
    // the loss's attention, and the gradient graph's (its value) and attention_grad
    CHECK(widths.size() == (form.fused ? 3u : 0u));
    for (const int w : widths) CHECK(w == 32);
    fused += form.fused ? 1 : 0;
  }
  CHECK(fused >= 8);
}

TEST_CASE("each head width, and positions left to the grid's loop") {
  ss::test::AttentionForm form = ss::test::kAttentionForms[0];  // causal, divided
  const struct {
    const char* head;
    int width;
  } heads[] = {{ss::test::kWideAttentionHeads[0], 64},
               {ss::test::kWideAttentionHeads[1], 128},
               {"dim H = 1\ndim T = 5\ndim K = 128\n", 128}};
  for (const auto& h : heads) {
    CAPTURE(h.head);
    form.head = h.head;
    // Inputs near 0.6, so a wide head's scores stay near a model's (a few
    // units): at 1.3 they reach 17 and the composition's own float32
    // gradient drifts past the `cuda` row from the fused kernels (the
    // CPU's as much as these).
    for (const int w : check_form(form, 65535, std::nullopt, 0.6)) CHECK(w == h.width);
  }
  form = ss::test::kAttentionForms[5];  // [b T H K], 3 heads: 9 positions
  for (const int w : check_form(form, 2)) CHECK(w == 32);
}

TEST_CASE("an infinite or NaN input gives NaN where the composition does, each way") {
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (const double poison : {inf, -inf, std::numeric_limits<double>::quiet_NaN()})
    for (const int f : {0, 1}) {  // causal and divided; not causal, multiplied
      CAPTURE(poison);
      CAPTURE(f);
      check_form(ss::test::kAttentionForms[f], 65535, poison);
    }
}

TEST_CASE("the CUDA executor runs each attention node as the fused kernels") {
  if (!compiler()) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  ss::test::NoopDevice device;
  const auto launched = [](const std::string& log, const std::string& name) {
    return log.find("kernel " + name + " ") != std::string::npos;
  };
  for (const bool wide : {false, true}) {
    CAPTURE(wide);
    ss::test::AttentionForm form = ss::test::kAttentionForms[0];
    if (wide) form.head = "dim H = 2\ndim T = 9\ndim K = 129\n";
    const auto checked = ss::test::check_source_text(ss::test::attention_program(form));
    std::string why;
    const auto cuda = ss::test::cuda_executor_on(ss::test::built::fake_cuda, {}, ss::Precision::f32,
                                                 true, &why, false);
    REQUIRE_MESSAGE(cuda, why);
    int nodes = 0;
    ss::test::fake_cuda<void (*)(int)>("ss_fake_log")(1);
    std::free(ss::test::fake_cuda<char* (*)()>("ss_fake_log_take")());
    for (const bool gradients : {false, true}) {
      const auto g = ss::test::lowered_graphs(*checked, gradients).at(0).graph;
      nodes += ss::test::count_ops(g, Op::attention) + ss::test::count_ops(g, Op::attention_grad);
      const auto in = ss::test::made_up_inputs(g, checked->typed.dims, 2, 1.1);
      const auto want = ss::runtime::run_graph(g, in, checked->typed.dims);
      const auto got = ss::runtime::run_graph(g, in, checked->typed.dims, nullptr, cuda.get());
      REQUIRE(got.size() == want.size());
      for (std::size_t o = 0; o < got.size(); ++o) {
        CHECK(got[o].shape() == want[o].shape());
        if (got[o].size() > 0) (void)got[o].get(0);  // copied back: the stream has run
      }
    }
    char* text = ss::test::fake_cuda<char* (*)()>("ss_fake_log_take")();
    const std::string log = text;
    std::free(text);
    ss::test::fake_cuda<void (*)(int)>("ss_fake_log")(0);
    const auto counts = ss::cuda::cuda_counts(*cuda).nodes;
    const auto path = [&](const char* name) {
      const auto it = counts.find(name);
      return it == counts.end() ? 0 : it->second;
    };
    REQUIRE(nodes == 3);  // the loss's, and the gradient graph's value and gradients
    const std::string w = wide ? "128" : "32";
    CHECK(path("attention") == (wide ? 0 : nodes));
    CHECK(path("composed") == (wide ? nodes : 0));
    CHECK(launched(log, "ss_attention_forward_" + w) == !wide);
    CHECK(launched(log, "ss_attention_dq_" + w) == !wide);
    CHECK(launched(log, "ss_attention_dkv_" + w) == !wide);
  }
}
