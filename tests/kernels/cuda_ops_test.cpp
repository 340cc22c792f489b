// CUDA C for the executor's other operations (kernels/cuda_ops): every
// pointwise operation on every dtype the executor takes, and each other
// kernel, compiles with NVRTC for sm_90; a few are kept as a golden source
// (tests/goldens/cuda/ops_kernels.cu, SS_UPDATE_GOLDENS=1 writes it anew)
// so a change to the generator is reviewed.
#include <doctest/doctest.h>

#include <set>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <variant>

#include "kernels/cuda_ops.hpp"
#include "kernels/nvrtc.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"
#include "types/unary_functions.hpp"

namespace {

using ss::cuda::Pointwise;
using ss::runtime::DType;

const ss::nvrtc::Compiler* compiler() {
  static auto opened = ss::nvrtc::Compiler::open("");
  return std::get_if<ss::nvrtc::Compiler>(&opened);
}

void compiles(const std::string& source, const std::vector<std::string>& kernels) {
  const auto* nvrtc = compiler();
  if (!nvrtc) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto result = nvrtc->compile(source, "ops.cu", {.sm = 90}, {"--fmad=false"});
  if (const auto* failure = std::get_if<ss::nvrtc::Failure>(&result))
    FAIL(failure->message << "\n" << failure->log << "\n" << source.substr(0, 4000));
  const auto& ptx = std::get<ss::nvrtc::Output>(result).code;
  for (const auto& k : kernels)
    CHECK_MESSAGE(ptx.find(".entry " + k + "(") != std::string::npos, k);
}

}  // namespace

TEST_CASE("every pointwise operation on every dtype compiles with NVRTC for sm_90") {
  const std::vector<DType> types = {DType::f32, DType::i32, DType::boolean};
  std::string all;
  std::vector<std::string> names;
  int n = 0;
  const auto add = [&](const Pointwise& op, const std::vector<DType>& in, DType out) {
    names.push_back("k" + std::to_string(n++));
    all += ss::cuda::pointwise_source(op, in, out, names.back());
  };
  for (const DType a : types)
    for (const DType out : types) add({}, {a}, out);  // copies and casts
  const int unaries = static_cast<int>(ss::types::unary_functions().size());
  for (int op = 0; op < unaries; ++op)
    for (const DType a : types) add({Pointwise::Kind::unary, op}, {a}, DType::f32);
  for (int op = 0; op <= static_cast<int>(ss::ir::Binary::logical_or); ++op)
    for (const DType a : types)
      for (const DType b : types)
        add({Pointwise::Kind::binary, op, a != DType::f32 && b != DType::f32}, {a, b}, DType::f32);
  for (const DType a : types) add({Pointwise::Kind::where}, {DType::boolean, a, a}, a);
  compiles(all, names);
  CHECK(n == 9 + unaries * 3 + 17 * 9 + 3);
  // Float work is float alone: every f32 unary and binary kernel's PTX
  // without a double operation (integer work adds in double, exactly),
  // but for CUDA's own sinf, cosf and tanf, whose reduction of a huge
  // argument (past 105615) takes a slow path in double.
  if (const auto* nvrtc = compiler()) {
    std::set<std::string> doubles;
    auto check = [&](const std::string& source, const std::string& name) {
      const auto result =
          nvrtc->compile(source, name + ".cu", {.sm = 90, .cubin = false}, {"--fmad=false"});
      REQUIRE(std::holds_alternative<ss::nvrtc::Output>(result));
      if (std::get<ss::nvrtc::Output>(result).code.find(".f64") != std::string::npos)
        doubles.insert(name);
    };
    for (int op = 0; op < unaries; ++op)
      check(ss::cuda::pointwise_source({Pointwise::Kind::unary, op}, {DType::f32}, DType::f32, "f"),
            ss::types::unary_functions()[static_cast<std::size_t>(op)].name);
    std::string binaries;
    int k = 0;
    for (int op = 0; op <= static_cast<int>(ss::ir::Binary::logical_or); ++op)
      binaries +=
          ss::cuda::pointwise_source({Pointwise::Kind::binary, op}, {DType::f32, DType::f32},
                                     DType::f32, "f" + std::to_string(k++));
    check(binaries, "binary");
    CHECK(doubles == std::set<std::string>{"sin", "cos", "tan"});
  }
  // bf16 and f16 arithmetic stays on the host: the generator refuses it.
  // A bf16 copy (a move, a narrowing, a widening) is the one bf16 work
  // here (tests/kernels/cuda_bf16_test.cpp compiles those).
  CHECK_THROWS(
      ss::cuda::pointwise_source({Pointwise::Kind::unary, 0}, {DType::bf16}, DType::f32, "x"));
  CHECK_THROWS(ss::cuda::pointwise_source({}, {DType::f16}, DType::f32, "x"));
  CHECK_THROWS(ss::cuda::pointwise_source({}, {DType::i32}, DType::bf16, "x"));
  CHECK_NOTHROW(ss::cuda::pointwise_source({}, {DType::bf16}, DType::f32, "x"));
  CHECK_THROWS(ss::cuda::pointwise_source({Pointwise::Kind::binary, 0}, {DType::f32}, DType::f32,
                                          "x"));  // one operand for two
}

TEST_CASE("the executor's other kernels compile, and a few are one golden source") {
  std::string golden_text;
  golden_text += ss::cuda::pointwise_source(
      {Pointwise::Kind::binary, static_cast<int>(ss::ir::Binary::mod), true},
      {DType::i32, DType::i32}, DType::i32, "mod_i32");
  golden_text += ss::cuda::cross_entropy_source("cross_entropy");
  golden_text += ss::cuda::gather_source(DType::f32, "gather_f32");
  golden_text += ss::cuda::gemm_source("gemm");
  const std::string golden =
      std::string(ss::test::kSourceDir) + "/tests/goldens/cuda/ops_kernels.cu";
  if (std::getenv("SS_UPDATE_GOLDENS")) std::ofstream(golden) << golden_text;
  std::ifstream in(golden);
  REQUIRE_MESSAGE(in, "no golden " << golden << ": run with SS_UPDATE_GOLDENS=1");
  std::stringstream want;
  want << in.rdbuf();
  CHECK(golden_text == want.str());

  std::string all = golden_text;
  std::vector<std::string> names = {"mod_i32", "cross_entropy", "gather_f32", "gemm",
                                    "arange",  "causal",        "scatter_add"};
  all += ss::cuda::arange_source("arange") + ss::cuda::causal_source("causal") +
         ss::cuda::scatter_add_source("scatter_add") +
         ss::cuda::scatter_add_ordered_source("scatter_add_ordered") +
         ss::cuda::normalise_source(true, "layer_norm") +
         ss::cuda::normalise_source(false, "rms_norm");
  names.insert(names.end(), {"scatter_add_ordered", "layer_norm", "rms_norm"});
  for (const DType t : {DType::f32, DType::i32, DType::boolean}) {
    const std::string tag = ss::runtime::dtype_name(t);
    all += ss::cuda::fill_source(t, "fill_" + tag) + ss::cuda::argmax_source(t, "argmax_" + tag) +
           ss::cuda::take_along_source(t, "take_along_" + tag);
    names.insert(names.end(), {"fill_" + tag, "argmax_" + tag, "take_along_" + tag});
    if (t != DType::f32) {
      all += ss::cuda::gather_source(t, "gather_" + tag);
      names.push_back("gather_" + tag);
    }
  }
  compiles(all, names);
}

TEST_CASE("the window kernels compile with NVRTC, with no double: the padding is float or int") {
  const std::pair<std::string, std::string> kernels[] = {
      {ss::cuda::window_source(DType::f32, "window_f32"), "window_f32"},
      {ss::cuda::window_source(DType::i32, "window_i32"), "window_i32"},
      {ss::cuda::window_fold_source("window_fold"), "window_fold"}};
  for (const auto& kernel : kernels) {
    const std::string& source = kernel.first;
    const std::string& name = kernel.second;  // named: clang 14 can't capture a binding
    CAPTURE(name);
    compiles(source, {name});
    if (const auto* nvrtc = compiler()) {
      const auto result =
          nvrtc->compile(source, "window.cu", {.sm = 90, .cubin = false}, {"--fmad=false"});
      REQUIRE(std::holds_alternative<ss::nvrtc::Output>(result));
      CHECK(std::get<ss::nvrtc::Output>(result).code.find(".f64") == std::string::npos);
    }
  }
}
