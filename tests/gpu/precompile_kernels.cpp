// `cuda_precompile DIR`: fills a code cache (ss::directory_code_cache) with
// the cubins the GPU checks, the digits demo and the GPU benchmark need,
// compiled here by NVRTC for sm_90, so tests/gpu/run.sh compiles nothing
// on the GPU machine. It runs every graph of those programs through the
// CUDA executor on the stand-in driver (tests/fakes) with launches as
// no-ops: the executor asks for exactly the kernels a real run does.
// The test support it shares checks with doctest: the work is one test case.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>

#include "../../bench/models.hpp"
#include "kernels/cuda_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/attention_forms.hpp"
#include "support/build_paths.hpp"
#include "support/checked_program.hpp"
#include "support/conv_programs.hpp"
#include "support/cuda_executors.hpp"
#include "support/lowered_graphs.hpp"

namespace {
std::string g_directory;  // where the cubins go
}  // namespace

TEST_CASE("the GPU checks' kernels compile into the bundle's code cache") {
  setenv("SS_FAKE_CUDA_LAUNCHES", "noop", 1);
  setenv("SS_FAKE_CUDA_SM", "90", 1);
  const auto cache = ss::directory_code_cache(g_directory);
  std::string why;
  const auto cuda =
      ss::test::cuda_executor_on(ss::test::built::fake_cuda, cache, ss::Precision::f32, true, &why);
  // The own GEMM kernel's checks too.
  const auto own_gemm = ss::test::cuda_executor_on(ss::test::built::fake_cuda, cache,
                                                   ss::Precision::f32, false, &why);
  // bf16's (the kept values' kernels), with cuBLAS and without.
  const auto bf16 = ss::test::cuda_executor_on(ss::test::built::fake_cuda, cache,
                                               ss::Precision::bf16, true, &why);
  const auto bf16_own = ss::test::cuda_executor_on(ss::test::built::fake_cuda, cache,
                                                   ss::Precision::bf16, false, &why);
  REQUIRE_MESSAGE((cuda && own_gemm && bf16 && bf16_own), why);
  // As the GPU checks lower them (the tf32 and bf16 check takes digits'
  // gradients), and as the CLI and the benchmark do.
  struct Program {
    std::unique_ptr<ss::test::CheckedProgram> checked;
    bool gradients;
  };
  std::vector<Program> programs;
  for (const auto& [file, gradients] :
       std::vector<std::pair<const char*, bool>>{{"tests/programs/valid/operations.ss", false},
                                                 {"examples/digits/digits.ss", false},
                                                 {"examples/digits/digits.ss", true},
                                                 {"examples/tinylm/tinylm.ss", false},
                                                 {"examples/cnn/cnn.ss", false},
                                                 {"tests/programs/gradients/ops.ss", true}})
    programs.push_back({ss::test::check_source_file(file), gradients});
  programs.push_back({ss::test::check_source_text(ss::bench::kMlpProgram), false});
  programs.push_back(
      {ss::test::check_source_text(ss::bench::attention_program(512, 256, 8)), false});
  const std::size_t under_bf16 = programs.size();  // the bf16 checks' and benchmark's programs
  for (const char* head : ss::test::kWideAttentionHeads) {  // the attention kernels' widths
    ss::test::AttentionForm form = ss::test::kAttentionForms[0];
    form.head = head;
    programs.push_back({ss::test::check_source_text(ss::test::attention_program(form)), true});
  }
  for (const auto& form : ss::test::kAttentionForms)
    programs.push_back({ss::test::check_source_text(ss::test::attention_program(form)), true});
  for (const bool gradients : {false, true})  // the convolutions' check
    programs.push_back({ss::test::check_source_text(ss::test::kConvPrograms), gradients});
  int graphs = 0;
  for (std::size_t p = 0; p < programs.size(); ++p)
    for (const auto& [function, g] :
         ss::test::lowered_graphs(*programs[p].checked, programs[p].gradients))
      for (const auto* executor : {cuda.get(), own_gemm.get(), bf16.get(), bf16_own.get()}) {
        if (p >= under_bf16 && (executor == bf16.get() || executor == bf16_own.get())) continue;
        const auto& program = programs[p].checked;
        try {
          ss::runtime::run_graph(g, ss::test::made_up_inputs(g, program->typed.dims),
                                 program->typed.dims, nullptr, executor);
          ++graphs;
        } catch (const std::exception&) {
          // Values the no-op kernels left: what was asked for before is kept.
        }
      }
  const auto a = ss::cuda::cuda_counts(*cuda), b = ss::cuda::cuda_counts(*own_gemm);
  const auto c = ss::cuda::cuda_counts(*bf16), d = ss::cuda::cuda_counts(*bf16_own);
  const auto compiled =
      a.kernels_compiled + b.kernels_compiled + c.kernels_compiled + d.kernels_compiled;
  std::printf("cuda_precompile: %d graph runs, %lld kernels compiled for sm_90 into %s\n", graphs,
              static_cast<long long>(compiled), g_directory.c_str());
  CHECK(graphs > 60);
  CHECK(compiled + a.kernels_from_store + b.kernels_from_store > 100);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cuda_precompile DIR\n");
    return 2;
  }
  g_directory = argv[1];
  doctest::Context context;
  context.setOption("no-version", true);
  return context.run();
}
