// CUDA C for trailing reductions (kernels/cuda_reduce): every operation's
// kernel compiles with NVRTC for sm_90, a float row's without a double
// operation; the GPU check that runs them is tests/gpu/kernels_gpu_test.cpp.
#include <doctest/doctest.h>

#include <variant>

#include "ir/ops.hpp"
#include "kernels/cuda_reduce.hpp"
#include "kernels/nvrtc.hpp"
#include "support/skip.hpp"

TEST_CASE("a reduction kernel for every operation compiles with NVRTC for sm_90") {
  static auto opened = ss::nvrtc::Compiler::open("");
  const auto* nvrtc = std::get_if<ss::nvrtc::Compiler>(&opened);
  if (!nvrtc) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  std::string all;
  for (int op = 0; op <= static_cast<int>(ss::ir::Reduce::std); ++op)
    all +=
        ss::cuda::reduction_source(static_cast<ss::ir::Reduce>(op), "reduce_" + std::to_string(op));
  const auto result = nvrtc->compile(all, "reduce.cu", {.sm = 90}, {"--fmad=false"});
  if (const auto* failure = std::get_if<ss::nvrtc::Failure>(&result))
    FAIL(failure->message << "\n" << failure->log << "\n" << all);
  const auto& ptx = std::get<ss::nvrtc::Output>(result).code;
  for (int op = 0; op <= static_cast<int>(ss::ir::Reduce::std); ++op)
    CHECK(ptx.find(".entry reduce_" + std::to_string(op) + "(") != std::string::npos);
  CHECK(ptx.find("shfl.sync.down") != std::string::npos);  // warp shuffles, then shared memory
  CHECK(ptx.find(".f64") == std::string::npos);            // float rows in float: no double at all

  // Integer rows add in double, where every int32 is exact.
  const auto ints =
      nvrtc->compile(ss::cuda::reduction_source(ss::ir::Reduce::mean, "mean_i32", "int"), "mean.cu",
                     {.sm = 90}, {"--fmad=false"});
  REQUIRE(std::holds_alternative<ss::nvrtc::Output>(ints));
  CHECK(std::get<ss::nvrtc::Output>(ints).code.find("add.rn.f64") != std::string::npos);
}
