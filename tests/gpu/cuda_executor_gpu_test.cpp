// The CUDA executor on a real GPU (tests/gpu/run.sh): every graph of the
// test programs, the demos (the CNN and tinylm's stack of blocks among
// them) and their gradients gives the reference
// runtime's results within float32 rounding at each tensor's scale; the
// tf32 and bf16 policies stay near f32 (cuBLASLt's bias and ReLU
// epilogues among them); cuDNN's convolution passes agree, and repeat
// their bits under --deterministic; the executor's own GEMM kernel
// (for machines without cuBLAS) agrees; running out of device memory is
// E1909, naming the tensor, and the module keeps working.
#include <doctest/doctest.h>

#include <cmath>
#include <iterator>
#include <memory>
#include <variant>

#include "gpu/gpu_setup.hpp"
#include "kernels/cuda_executor.hpp"
#include "kernels/nvrtc.hpp"
#include "runtime/reference/interpreter.hpp"
#include "runtime/reference/ops.hpp"
#include "shapescript/shapescript.hpp"
#include "support/agreement.hpp"
#include "support/attention_forms.hpp"
#include "support/bf16_roundings.hpp"
#include "support/checked_program.hpp"
#include "support/conv_programs.hpp"
#include "support/cuda_executors.hpp"
#include "support/lowered_graphs.hpp"
#include "support/numerics.hpp"

namespace {

using ss::runtime::Tensor;

std::unique_ptr<ss::runtime::GraphExecutor> open_executor(ss::Precision precision, bool cublas,
                                                          bool graphs = true,
                                                          bool deterministic = false) {
  if (!ss::test::driver_or_skip()) return nullptr;
  const char* cache = std::getenv("SS_GPU_CODE_CACHE");
  std::string why;
  auto made =
      ss::test::cuda_executor_on("", cache ? ss::directory_code_cache(cache) : ss::CodeCache{},
                                 precision, cublas, &why, graphs, deterministic);
  REQUIRE_MESSAGE(made, why);
  return made;
}

using ss::test::Agreement;
using ss::test::compare;

struct Program {
  std::string file;
  bool gradients;
};
const std::vector<Program> kAll = {{"tests/programs/valid/operations.ss", false},
                                   {"examples/digits/digits.ss", false},
                                   {"examples/tinylm/tinylm.ss", false},
                                   {"examples/cnn/cnn.ss", false},
                                   {"tests/programs/gradients/ops.ss", true}};

// Each graph within `row` of docs/numerics.md; `flips`: how many integer
// or bool elements of a graph may differ (a comparison of nearly equal
// values: one under f32, a share of them under bf16's roundings).
Agreement run_programs(const ss::runtime::GraphExecutor& cuda, const std::vector<Program>& programs,
                       int* graphs, const std::string& row = "cuda", double flips = 0,
                       double scale = 1.7) {
  Agreement a;
  for (const auto& entry : programs) {
    const auto& file = entry.file;  // named: clang 14 can't capture a binding
    const auto& gradients = entry.gradients;
    const auto program = ss::test::check_source_file(file);
    const auto& dims = program->typed.dims;
    for (const auto& lowered : ss::test::lowered_graphs(*program, gradients)) {
      const auto& function = lowered.function;  // named: clang 14 can't capture a binding
      const auto& g = lowered.graph;
      INFO(file << ": " << function);
      const auto inputs = ss::test::made_up_inputs(g, dims, 37, scale);
      std::vector<Tensor> want;
      try {
        want = ss::runtime::run_graph(g, inputs, dims);
      } catch (const ss::runtime::reference::RangeError&) {
        continue;  // made-up values the function refuses
      }
      Agreement one;
      compare(want, ss::runtime::run_graph(g, inputs, dims, nullptr, &cuda), one);
      CHECK_MESSAGE(one.worst <= ss::test::tolerance(row).relative,
                    "worst difference at the tensor's scale: " << one.worst);
      CHECK(one.flipped <=
            std::max<std::int64_t>(
                1, static_cast<std::int64_t>(flips * static_cast<double>(one.elements))));
      a.worst = std::max(a.worst, one.worst);
      a.flipped += one.flipped;
      a.elements += one.elements;
      ++*graphs;
    }
  }
  return a;
}

}  // namespace

TEST_CASE(
    "gpu: every graph of the test programs gives the reference's results on the CUDA executor") {
  const auto cuda = open_executor(ss::Precision::f32, true);
  if (!cuda) return;
  int graphs = 0;
  const auto a = run_programs(*cuda, kAll, &graphs);
  const auto counts = ss::cuda::cuda_counts(*cuda);
  MESSAGE(graphs << " graphs, " << a.elements << " elements; worst difference " << a.worst
                 << " of the scale, " << a.flipped << " integer elements flipped; cuBLAS "
                 << (counts.cublas ? "yes" : "no") << ", cuDNN " << (counts.cudnn ? "yes" : "no")
                 << ", " << counts.kernels_compiled << " kernels compiled, "
                 << counts.kernels_from_store << " from the cache, " << counts.allocations
                 << " cuMemAlloc calls, " << counts.reused << " reused");
  std::string paths;
  for (const auto& [path, n] : counts.nodes) paths += path + " " + std::to_string(n) + "; ";
  MESSAGE("nodes by path: " << paths);
  CHECK(graphs > 40);
  CHECK(counts.fused_kernels > 10);
  // digits' and the MLP's relu(x @ w + b) in cuBLASLt's epilogue
  if (counts.cublas && !std::getenv("SHAPESCRIPT_CUBLASLT"))
    CHECK(counts.nodes.count("gemm epilogue") == 1);
  // the CNN's convolutions, and the gradients' passes, on cuDNN
  if (counts.cudnn) CHECK(counts.nodes.count("cudnn") == 1);
  CHECK(counts.reused > counts.allocations);  // the allocator's cache serves most requests
}

TEST_CASE("gpu: the fused attention kernels agree with the reference in every form and width") {
  const auto cuda = open_executor(ss::Precision::f32, true);
  if (!cuda) return;
  std::vector<ss::test::AttentionForm> forms(std::begin(ss::test::kAttentionForms),
                                             std::end(ss::test::kAttentionForms));
  for (const char* head : ss::test::kWideAttentionHeads) {
    forms.push_back(ss::test::kAttentionForms[0]);
    forms.back().head = head;
  }
  Agreement a;
  int graphs = 0, fused = 0;
  for (const auto& form : forms) {
    const std::string name = std::string(form.name) + " " + form.head;
    CAPTURE(name);
    const auto checked = ss::test::check_source_text(ss::test::attention_program(form));
    const auto& dims = checked->typed.dims;
    for (const bool gradients : {false, true}) {
      const auto g = ss::test::lowered_graphs(*checked, gradients).at(0).graph;
      fused += ss::test::count_ops(g, ss::ir::Op::attention) +
               ss::test::count_ops(g, ss::ir::Op::attention_grad);
      const auto inputs = ss::test::made_up_inputs(g, dims, 3, 1.3);
      Agreement one;
      compare(ss::runtime::run_graph(g, inputs, dims),
              ss::runtime::run_graph(g, inputs, dims, nullptr, cuda.get()), one);
      CHECK_MESSAGE(one.worst <= ss::test::tolerance("cuda").relative,
                    "worst difference at the tensor's scale: " << one.worst);
      a.worst = std::max(a.worst, one.worst);
      ++graphs;
    }
  }
  const auto counts = ss::cuda::cuda_counts(*cuda).nodes;
  const auto it = counts.find("attention");
  MESSAGE(graphs << " graphs, " << fused << " attention nodes; worst difference " << a.worst
                 << " of the scale");
  CHECK((it != counts.end() && it->second == fused));
}

TEST_CASE(
    "gpu: cuDNN's convolution passes agree with the reference, and repeat when deterministic") {
  // Each graph's passes on cuDNN where it opened (the uneven padding a
  // window and a GEMM), under f32 and tf32 (its default math: the
  // cuda-reduced row); under --deterministic two runs give the same bits.
  const auto checked = ss::test::check_source_text(ss::test::kConvPrograms);
  const auto& dims = checked->typed.dims;
  for (const auto precision : {ss::Precision::f32, ss::Precision::tf32}) {
    for (const bool deterministic : {false, true}) {
      CAPTURE(static_cast<int>(precision));
      CAPTURE(deterministic);
      const auto cuda = open_executor(precision, true, false, deterministic);
      if (!cuda) return;
      const bool cudnn = ss::cuda::cuda_counts(*cuda).cudnn;
      const std::string row = precision == ss::Precision::f32 ? "cuda" : "cuda-reduced";
      Agreement a;
      for (const bool gradients : {false, true})
        for (const auto& lowered : ss::test::lowered_graphs(*checked, gradients)) {
          const std::string function = lowered.function;  // clang 14 can't capture a binding
          CAPTURE(function);
          CAPTURE(gradients);
          const auto& g = lowered.graph;
          const auto inputs = ss::test::made_up_inputs(g, dims, 5, 1.3);
          const std::int64_t before = ss::test::path_count(*cuda, "cudnn");
          const auto got = ss::runtime::run_graph(g, inputs, dims, nullptr, cuda.get());
          CHECK(ss::test::path_count(*cuda, "cudnn") - before ==
                (cudnn ? ss::test::cudnn_passes(function, gradients) : 0));
          Agreement one;
          compare(ss::runtime::run_graph(g, inputs, dims), got, one);
          CHECK_MESSAGE(one.worst <= ss::test::tolerance(row).relative,
                        "worst difference at the tensor's scale: " << one.worst);
          a.worst = std::max(a.worst, one.worst);
          if (deterministic) {
            const auto again = ss::runtime::run_graph(g, inputs, dims, nullptr, cuda.get());
            for (std::size_t k = 0; k < got.size(); ++k)
              CHECK(again[k].values() == got[k].values());
          }
        }
      MESSAGE("cuDNN " << (cudnn ? "yes" : "no") << ", " << row << ", deterministic "
                       << deterministic << ": worst difference " << a.worst << " of the scale");
    }
  }
}

TEST_CASE("gpu: a CUDA graph's replays agree with the uncaptured runs of the same inputs") {
  const auto eager = open_executor(ss::Precision::f32, true, false);
  if (!eager) return;
  const auto captured = open_executor(ss::Precision::f32, true, true);
  int replayed = 0;
  for (const auto& entry : kAll) {
    const auto& file = entry.file;  // named: clang 14 can't capture a binding
    const auto program = ss::test::check_source_file(file);
    const auto& dims = program->typed.dims;
    for (const auto& lowered : ss::test::lowered_graphs(*program, entry.gradients)) {
      const auto& function = lowered.function;  // named: clang 14 can't capture a binding
      const auto& g = lowered.graph;
      INFO(file << ": " << function);
      // Three calls on inputs that change (the third a replay), each
      // against the uncaptured run of the same inputs. Atomics' order may
      // differ between runs (scatter_add), so the tolerance is the table's.
      try {
        ss::runtime::run_graph(g, ss::test::made_up_inputs(g, dims, 37, 1.7), dims);
      } catch (const ss::runtime::reference::RangeError&) {
        continue;
      }
      const auto before = ss::cuda::cuda_counts(*captured).graph_replays;
      for (int call = 0; call < 3; ++call) {
        const auto inputs = ss::test::made_up_inputs(g, dims, 37, 1.7 + 0.1 * call);
        std::vector<Tensor> want;
        try {
          want = ss::runtime::run_graph(g, inputs, dims, nullptr, eager.get());
        } catch (const ss::runtime::reference::RangeError&) {
          break;
        }
        Agreement a;
        compare(want, ss::runtime::run_graph(g, inputs, dims, nullptr, captured.get()), a);
        CHECK(a.worst <= ss::test::tolerance("cuda").relative);
        CHECK(a.flipped <= 1);
      }
      replayed += ss::cuda::cuda_counts(*captured).graph_replays > before ? 1 : 0;
    }
  }
  MESSAGE(replayed << " graphs replayed");
  CHECK(replayed > 30);
}

TEST_CASE("gpu: the executor's own GEMM kernel agrees, for machines without cuBLAS") {
  const auto cuda = open_executor(ss::Precision::f32, false);
  if (!cuda) return;
  int graphs = 0;
  const auto a = run_programs(*cuda, {kAll[0], kAll[1], kAll[3]}, &graphs);
  MESSAGE(graphs << " graphs without cuBLAS; worst difference " << a.worst);
  CHECK_FALSE(ss::cuda::cuda_counts(*cuda).cublas);
}

TEST_CASE("gpu: under bf16, with values kept in bf16, every graph stays within cuda-reduced") {
  for (const bool cublas : {true, false}) {
    const auto cuda = open_executor(ss::Precision::bf16, cublas);
    if (!cuda) return;
    int graphs = 0;
    // The inputs tests/kernels/cuda_bf16_test.cpp checks bf16's roundings
    // on, emulated on the reference (1e-2 of the scale there).
    const auto a = run_programs(*cuda, cublas ? kAll : std::vector<Program>{kAll[1], kAll[3]},
                                &graphs, "cuda-reduced", 0.02, ss::test::kBf16InputScale);
    const auto counts = ss::cuda::cuda_counts(*cuda);
    MESSAGE("bf16, cuBLAS " << (cublas && counts.cublas ? "yes" : "no") << ": " << graphs
                            << " graphs, worst difference " << a.worst << " of the scale, "
                            << a.flipped << " of " << a.elements << " integer elements flipped");
    CHECK(graphs > (cublas ? 40 : 5));
  }
}

TEST_CASE("gpu: tf32 and bf16 contractions stay near f32's, and change them") {
  const auto program = ss::test::check_source_file("examples/digits/digits.ss");
  const auto& dims = program->typed.dims;
  for (const auto precision : {ss::Precision::tf32, ss::Precision::bf16}) {
    const auto cuda = open_executor(precision, true);
    if (!cuda) return;
    Agreement a;
    for (const auto& [function, g] : ss::test::lowered_graphs(*program, true)) {
      // Values of order one (ss::test::kBf16InputScale): with 1.7 digits'
      // logits reach 1e3 and the loss, their difference, loses 0.39 of
      // its scale to bf16's input rounding alone (cuda_bf16_test.cpp).
      const auto inputs = ss::test::made_up_inputs(g, dims, 64, ss::test::kBf16InputScale);
      compare(ss::runtime::run_graph(g, inputs, dims),
              ss::runtime::run_graph(g, inputs, dims, nullptr, cuda.get()), a);
    }
    MESSAGE((precision == ss::Precision::bf16 ? "bf16" : "tf32")
            << ": worst difference " << a.worst << " of the scale");
    CHECK(a.worst <= ss::test::tolerance("cuda-reduced").relative);
    CHECK(a.worst > 1e-6);  // the policy took effect: not f32's results
  }
}

TEST_CASE("gpu: out of device memory is E1909 naming the tensor, and the module keeps working") {
  if (!ss::test::driver_or_skip()) return;
  const ss::Engine engine;
  const auto module = engine.load_source(
      "devices cuda[0]\ndim M = 400000\ndim N = 400000\n\n"
      "fn big(x: [N]) -> [N]:\n    return sum(ones([M N]), over=M) + x\n\n"
      "fn small(x: [N]) -> [N]:\n    return x * 2.0\n",
      "big.ss");
  REQUIRE_MESSAGE(module, (module.diagnostics().empty() ? "" : module.diagnostics()[0].render()));
  std::vector<float> x(400000, 1.5f);
  const auto input = ss::Tensor::view(x.data(), {400000});
  const auto failed = module.call("big", {input});
  REQUIRE(failed.diagnostics.size() == 1);
  CHECK(failed.diagnostics[0].code == "E1909");
  CHECK(failed.diagnostics[0].message.find("(fill)") != std::string::npos);
  const auto fine = module.call("small", {input});
  REQUIRE(fine.diagnostics.empty());
  CHECK(fine.outputs.at(0).to_floats().at(7) == 3.0f);
}
