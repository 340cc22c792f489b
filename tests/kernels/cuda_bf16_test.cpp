// --precision bf16 on CUDA: the values kept in bf16 between the GEMMs, the
// fused elementwise kernels and the reductions (kernels/cuda_bf16_plan.hpp).
// - cuda_bf16.cuh's conversions, compiled for the host, give the
//   reference's bf16 bits (runtime/core/dtype.cpp) for every float class;
// - the plan keeps exactly the intermediates that only those read, never
//   an output;
// - the kernels that read and write bf16 compile with NVRTC, in float32
//   alone, and read and write 16-bit words;
// - the plan's roundings, made on the reference (support/bf16_roundings),
//   stay within the cuda-reduced row for values of order one;
// - on the stand-in driver, every graph of the test programs runs under
//   bf16 with those kernels, its results float32 as the reference's
//   (kernels/cuda_executor_test.cpp, and its replays cuda_graphs_test.cpp).
// The executor's values are compared with the reference on a GPU
// (tests/gpu/cuda_executor_gpu_test.cpp, the cuda-reduced row).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <variant>

#include "kernels/cuda_bf16_plan.hpp"
#include "kernels/cuda_elementwise.hpp"
#include "kernels/cuda_executor.hpp"
#include "kernels/cuda_graph_run.hpp"
#include "kernels/cuda_ops.hpp"
#include "kernels/cuda_reduce.hpp"
#include "kernels/nvrtc.hpp"
#include "lower/lower.hpp"
#include "runtime/core/dtype.hpp"
#include "runtime/reference/interpreter.hpp"
#include "runtime/reference/ops.hpp"
#include "support/agreement.hpp"
#include "support/batch_ops.hpp"
#include "support/bf16_roundings.hpp"
#include "support/checked_program.hpp"
#include "support/cuda_executors.hpp"
#include "support/cuda_on_host.hpp"
#include "support/fake_cuda.hpp"
#include "support/lowered_graphs.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

// The library's text of it, compiled here for the host.
#include "kernels/cuda_bf16.cuh"

namespace {

float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

const ss::nvrtc::Compiler* compiler() {
  static auto opened = ss::nvrtc::Compiler::open("");
  return std::get_if<ss::nvrtc::Compiler>(&opened);
}

// An MLP's layer, then a second product under two fused operations: the
// first product (read by the layer's kernel), the layer (read by the
// second GEMM) and the second product (read by the last kernel) are kept
// in bf16; the result isn't, being the output.
constexpr const char* kLayers =
    "dim K = 8\ndim H = 16\ndim C = 4\n\n"
    "fn f(x: [b K], w1: [K H], b1: [H], w2: [H C]) -> [b C]:\n"
    "    h = relu(x @ w1 + b1)\n"
    "    return tanh(h @ w2) * 2.0\n\n"
    "fn g(x: [b K], w1: [K H], b1: [H]) -> [b H]:\n"
    "    h = relu(x @ w1 + b1)\n"
    "    return softmax(h, over=H)\n\n"
    "fn s(x: [b K], w1: [K H], b1: [H]) -> [H]:\n"
    "    h = relu(x @ w1 + b1)\n"
    "    return sum(h, over=b)\n";

std::vector<std::size_t> kept_nodes(const ss::ir::Graph& g) {
  const auto plan = ss::cuda::detail::make_plan(g);
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (plan->bf16_storage[i]) kept.push_back(i);
  return kept;
}

}  // namespace

TEST_CASE(
    "bf16's roundings, emulated on the reference, stay within cuda-reduced for values near one") {
  // The GPU check's programs and inputs (tests/gpu/cuda_executor_gpu_test.cpp):
  // sines of amplitude 0.25, so activations stay of order one as a
  // model's do. With amplitude 1.7 digits' logits reach 1e3 and its loss
  // is their difference: there the GEMMs' input rounding alone (the
  // policy before any value was kept in bf16) costs 0.39 of the scale.
  const ss::test::Bf16Roundings bf16;
  double worst = 0;
  std::int64_t flipped = 0, elements = 0;
  int graphs = 0;
  for (const auto& entry :
       std::vector<std::pair<std::string, bool>>{{"tests/programs/valid/operations.ss", false},
                                                 {"examples/digits/digits.ss", true},
                                                 {"examples/tinylm/tinylm.ss", false},
                                                 {"examples/cnn/cnn.ss", false},
                                                 {"tests/programs/gradients/ops.ss", true}}) {
    const std::string& file = entry.first;  // named: clang 14 can't capture a binding
    const auto program = ss::test::check_source_file(file);
    const auto& dims = program->typed.dims;
    for (const auto& lowered : ss::test::lowered_graphs(*program, entry.second)) {
      INFO(file << ": " << lowered.function);
      const auto& g = lowered.graph;
      const auto inputs = ss::test::made_up_inputs(g, dims, 37, ss::test::kBf16InputScale);
      std::vector<ss::runtime::Tensor> want;
      try {
        want = ss::runtime::run_graph(g, inputs, dims);
      } catch (const ss::runtime::reference::RangeError&) {
        continue;
      }
      const auto got = ss::runtime::run_graph(g, inputs, dims, nullptr, &bf16);
      ss::test::Agreement a;
      ss::test::compare(want, got, a);
      CHECK_MESSAGE(a.worst <= ss::test::tolerance("cuda-reduced").relative,
                    "worst difference at the tensor's scale: " << a.worst);
      CHECK(a.flipped <= std::max<std::int64_t>(1, a.elements / 50));  // the row's 2%
      worst = std::max(worst, a.worst);
      flipped += a.flipped;
      elements += a.elements;
      ++graphs;
    }
  }
  MESSAGE(graphs << " graphs; worst difference " << worst << " of the scale, " << flipped << " of "
                 << elements << " elements flipped");
  CHECK(graphs > 40);
  CHECK(worst > 1e-4);  // the roundings took effect
}

TEST_CASE("bf16's conversions on CUDA are the reference's, bit for bit") {
  // Every bf16 widens exactly, and narrows back to itself (a NaN to a quiet one).
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const float wide = ss_from_bf16(static_cast<unsigned short>(b));
    CHECK(bits_of(wide) == bits_of(ss::runtime::bfloat_to_float(static_cast<std::uint16_t>(b))));
    CHECK(ss_bf16(wide) == ss::runtime::float_to_bfloat(wide));
  }
  // Ties both ways, just past them, subnormals, the largest finite float
  // (which rounds to infinity), infinities, NaNs of both signs, and a
  // sweep of random bit patterns.
  std::vector<std::uint32_t> cases = {
      0x00000000u, 0x80000000u, 0x00008000u, 0x00018000u, 0x3f808000u, 0x3f818000u,
      0x3f808001u, 0x3f807fffu, 0x00000001u, 0x807fffffu, 0x7f7fffffu, 0xff7fffffu,
      0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff80ffffu};
  std::mt19937 random(7);
  for (int k = 0; k < 200000; ++k) cases.push_back(static_cast<std::uint32_t>(random()));
  for (const std::uint32_t u : cases) {
    CAPTURE(u);
    const float f = float_of(u);
    CHECK(ss_bf16(f) == ss::runtime::float_to_bfloat(f));
  }
  CHECK(ss_bf16(float_of(0x3f808000u)) == 0x3f80);  // a tie to the even side
  CHECK(ss_bf16(float_of(0x3f818000u)) == 0x3f82);
  CHECK(ss_bf16(float_of(0x7f7fffffu)) == 0x7f80);  // past the largest bf16: infinity
}

TEST_CASE(
    "bf16 keeps the intermediates only GEMMs, fused kernels and reductions read, not outputs") {
  const auto program = ss::test::check_source_text(kLayers);
  {
    const auto g = ss::lower::lower_function(program->typed, "f");
    const auto kept = kept_nodes(g);
    std::vector<ss::ir::Op> ops;
    for (const std::size_t i : kept) ops.push_back(g.nodes[i].op);
    // Both products and the layer's ReLU, the fused region's root.
    REQUIRE(kept.size() == 3);
    CHECK(std::count(ops.begin(), ops.end(), ss::ir::Op::matmul) == 2);
    const auto plan = ss::cuda::detail::make_plan(g);
    int roots = 0;
    for (const std::size_t i : kept) roots += plan->root_of[i] >= 0 ? 1 : 0;
    CHECK(roots == 1);
    for (const int o : g.outputs) CHECK(!plan->bf16_storage[static_cast<std::size_t>(o)]);
  }
  {
    // The layer is read by softmax, which reads float32: only the product is kept.
    const auto g = ss::lower::lower_function(program->typed, "g");
    const auto kept = kept_nodes(g);
    REQUIRE(kept.size() == 1);
    CHECK(g.nodes[kept[0]].op == ss::ir::Op::matmul);
  }
  {
    // Read by a reduction, which widens as it loads: the layer is kept too.
    const auto g = ss::lower::lower_function(program->typed, "s");
    const auto kept = kept_nodes(g);
    REQUIRE(kept.size() == 2);
    CHECK(g.nodes[kept[0]].op == ss::ir::Op::matmul);
    CHECK(ss::cuda::detail::make_plan(g)->root_of[kept[1]] >= 0);
  }
  // Over every graph of the demos and their gradients: each kept value is
  // float32, made by a GEMM or as a region's root, not an output, and
  // every reader is a GEMM or a fused region that loads it.
  int kept_total = 0, reduced = 0;
  for (const char* file :
       {"examples/digits/digits.ss", "examples/tinylm/tinylm.ss", "examples/cnn/cnn.ss"})
    for (const auto& lowered : ss::test::lowered_graphs(*ss::test::check_source_file(file), true)) {
      const auto& g = lowered.graph;
      CAPTURE(lowered.function);
      const auto plan = ss::cuda::detail::make_plan(g);
      std::vector<int> region(g.nodes.size(), -1);
      for (std::size_t k = 0; k < plan->kernels.size(); ++k) {
        region[static_cast<std::size_t>(plan->kernels[k].root)] = static_cast<int>(k);
        for (const int m : plan->kernels[k].members)
          region[static_cast<std::size_t>(m)] = static_cast<int>(k);
      }
      for (const int o : g.outputs) CHECK(!plan->bf16_storage[static_cast<std::size_t>(o)]);
      for (std::size_t v = 0; v < g.nodes.size(); ++v) {
        if (!plan->bf16_storage[v]) continue;
        ++kept_total;
        CHECK(g.nodes[v].type.elem.kind == ss::types::ElemKind::f32);
        CHECK((ss::cuda::bf16_gemm(g.nodes[v]) || plan->root_of[v] >= 0));
        for (std::size_t r = 0; r < g.nodes.size(); ++r) {
          const auto& in = g.nodes[r].in;
          if (std::find(in.begin(), in.end(), static_cast<int>(v)) == in.end()) continue;
          const int k = region[r];
          const bool loads =
              k >= 0 && std::count(plan->kernels[static_cast<std::size_t>(k)].inputs.begin(),
                                   plan->kernels[static_cast<std::size_t>(k)].inputs.end(),
                                   static_cast<int>(v)) > 0;
          CHECK((loads || ss::cuda::bf16_reader(g.nodes[r])));
          reduced += g.nodes[r].op == ss::ir::Op::reduce ? 1 : 0;
        }
      }
    }
  // The hidden activations and the gradients through them, in every demo.
  CHECK(kept_total > 20);
  CHECK(reduced > 3);  // the gradients' bias sums over the batch among them
}

TEST_CASE("the kernels that read and write bf16 compile with NVRTC, in float32 alone") {
  const auto* nvrtc = compiler();
  if (!nvrtc) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  // Every fused kernel of the demos' gradients, each float input read as
  // bf16 and the result stored as bf16, in one program.
  std::string all;
  std::vector<std::string> names;
  for (const char* file : {"examples/digits/digits.ss", "examples/tinylm/tinylm.ss"})
    for (const auto& lowered : ss::test::lowered_graphs(*ss::test::check_source_file(file), true)) {
      const auto kernels = ss::ir::plan_fusion(lowered.graph);
      for (std::size_t k = 0; k < kernels.size(); ++k) {
        std::vector<std::uint8_t> bf16(kernels[k].inputs.size(), 1);
        const std::string name = "bf16_" + std::to_string(names.size());
        all += ss::cuda::elementwise_source(
            kernels[k], ss::ir::inner_broadcast(lowered.graph, kernels[k]), name, bf16, true);
        names.push_back(name);
      }
    }
  using ss::runtime::DType;
  const ss::cuda::Pointwise copy;
  for (const auto& [in, out] : std::vector<std::pair<DType, DType>>{
           {DType::f32, DType::bf16}, {DType::bf16, DType::f32}, {DType::bf16, DType::bf16}}) {
    names.push_back(std::string("copy_") + ss::runtime::dtype_name(in) + "_" +
                    ss::runtime::dtype_name(out));
    all += ss::cuda::pointwise_source(copy, {in}, out, names.back());
  }
  for (int op = 0; op <= static_cast<int>(ss::ir::Reduce::std); ++op) {
    names.push_back("reduce_bf16_" + std::to_string(op));
    all +=
        ss::cuda::reduction_source(static_cast<ss::ir::Reduce>(op), names.back(), "unsigned short");
  }
  REQUIRE(names.size() > 10);
  const auto result = nvrtc->compile(all, "bf16.cu", {.sm = 90, .cubin = false}, {"--fmad=false"});
  if (const auto* failure = std::get_if<ss::nvrtc::Failure>(&result))
    FAIL(failure->message << "\n" << failure->log);
  const auto& ptx = std::get<ss::nvrtc::Output>(result).code;
  for (const auto& name : names) {
    CAPTURE(name);
    CHECK(ptx.find(".entry " + name + "(") != std::string::npos);
  }
  CHECK(ptx.find(".f64") == std::string::npos);
  CHECK(ptx.find("ld.global.nc.u16") != std::string::npos);  // 16-bit loads...
  CHECK(ptx.find("st.global.u16") != std::string::npos);     // ...and stores
  // Only floats narrow: an integer has no bf16 copy.
  CHECK_THROWS(ss::cuda::pointwise_source(copy, {DType::i32}, DType::bf16, "no"));
}
