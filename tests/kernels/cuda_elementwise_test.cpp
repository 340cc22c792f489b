// CUDA C from the fused IR (kernels/cuda_elementwise): every fused kernel of
// the test programs and their gradients compiles with NVRTC for sm_90 (no
// GPU needed) to PTX without a double operation, and the source of one
// kernel is kept as a golden file, so a change to the generator is reviewed.
// SS_UPDATE_GOLDENS=1 writes the golden anew.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <variant>

#include "ir/fusion.hpp"
#include "kernels/cuda_code_cache.hpp"
#include "kernels/cuda_elementwise.hpp"
#include "kernels/nvrtc.hpp"
#include "lower/lower.hpp"
#include "support/checked_program.hpp"
#include "support/lowered_graphs.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"
#include "types/binary_functions.hpp"

namespace {

const ss::nvrtc::Compiler* compiler() {
  static auto opened = ss::nvrtc::Compiler::open("");
  return std::get_if<ss::nvrtc::Compiler>(&opened);
}

// The options every generated kernel compiles with: no contraction into
// FMAs, which the CPU's kernels don't do either.
const std::vector<std::string> kOptions = {"--fmad=false"};

// The fused kernels of every lowered function (and, for the gradient
// programs, of its gradient graph) of a file, as sources.
std::vector<std::string> sources_of(const std::string& file, bool gradients) {
  const auto program = ss::test::check_source_file(file);
  std::vector<std::string> out;
  for (const auto& [function, g] : ss::test::lowered_graphs(*program, gradients)) {
    const auto kernels = ss::ir::plan_fusion(g);
    for (std::size_t k = 0; k < kernels.size(); ++k)
      out.push_back(ss::cuda::elementwise_source(kernels[k], ss::ir::inner_broadcast(g, kernels[k]),
                                                 function + "_k" + std::to_string(k)));
  }
  return out;
}

std::string kernel_name(const std::string& source) {
  const auto at = source.find("__global__ void ") + 16;
  return source.substr(at, source.find('(', at) - at);
}

// Compiles kernels' sources as one program and finds each kernel named, in
// float32 throughout: no double operation, conversion or register.
void compiles_in_float(const ss::nvrtc::Compiler& nvrtc, const std::string& all,
                       const std::vector<std::string>& names) {
  const auto result = nvrtc.compile(all, "kernels.cu", {.sm = 90, .cubin = false}, kOptions);
  if (const auto* failure = std::get_if<ss::nvrtc::Failure>(&result))
    FAIL(failure->message << "\n" << failure->log << "\n" << all);
  const auto& ptx = std::get<ss::nvrtc::Output>(result).code;
  for (const auto& name : names) {
    CAPTURE(name);
    CHECK(ptx.find(".entry " + name + "(") != std::string::npos);
  }
  CHECK(ptx.find(".f64") == std::string::npos);
}

}  // namespace

TEST_CASE("every fused kernel of the test programs compiles with NVRTC for sm_90") {
  const auto* nvrtc = compiler();
  if (!nvrtc) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  int compiled = 0;
  for (const auto& entry :
       std::vector<std::pair<std::string, bool>>{{"tests/programs/valid/operations.ss", false},
                                                 {"tests/programs/valid/features.ss", false},
                                                 {"examples/digits/digits.ss", false},
                                                 {"examples/tinylm/tinylm.ss", false},
                                                 {"tests/programs/gradients/ops.ss", true}}) {
    const auto& file = entry.first;  // named: clang 14 can't capture a binding
    const auto& gradients = entry.second;
    // A file's kernels in one program (each defines its own names; the
    // prelude is guarded), one NVRTC call: each call costs a few tenths
    // of a second.
    std::string all;
    std::vector<std::string> names;
    for (const auto& source : sources_of(file, gradients)) {
      all += source;
      names.push_back(kernel_name(source));
    }
    CAPTURE(file);
    compiles_in_float(*nvrtc, all, names);
    compiled += static_cast<int>(names.size());
  }
  CHECK(compiled > 40);
}

TEST_CASE("a generated kernel rounds each float operation, in float alone: one golden source") {
  const auto program = ss::test::check_source_text(ss::test::kFusedKernelProgram);
  const auto g = ss::lower::lower_function(program->typed, "f");
  const auto kernels = ss::ir::plan_fusion(g);
  REQUIRE(kernels.size() == 2);
  std::string all;
  for (std::size_t k = 0; k < kernels.size(); ++k)
    all += ss::cuda::elementwise_source(kernels[k], ss::ir::inner_broadcast(g, kernels[k]),
                                        "fused_k" + std::to_string(k));
  const std::string golden =
      std::string(ss::test::kSourceDir) + "/tests/goldens/cuda/fused_kernels.cu";
  if (std::getenv("SS_UPDATE_GOLDENS")) std::ofstream(golden) << all;
  std::ifstream in(golden);
  REQUIRE_MESSAGE(in, "no golden " << golden << ": run with SS_UPDATE_GOLDENS=1");
  std::stringstream want;
  want << in.rdbuf();
  CHECK(all == want.str());

  const auto* nvrtc = compiler();
  if (!nvrtc) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto result = nvrtc->compile(all, "fused.cu", {.sm = 90, .cubin = false}, kOptions);
  if (const auto* failure = std::get_if<ss::nvrtc::Failure>(&result))
    FAIL(failure->message << "\n" << failure->log);
  const auto& ptx = std::get<ss::nvrtc::Output>(result).code;
  CHECK(ptx.find(".entry fused_k0(") != std::string::npos);
  // The formula's own products round (mul.rn); CUDA's expf and tanhf use
  // FMAs inside, which their stated ulp already counts. No double at all.
  CHECK(ptx.find("mul.rn.f32") != std::string::npos);
  CHECK(ptx.find(".f64") == std::string::npos);
}

TEST_CASE("NVRTC's output is kept by content: a second load compiles nothing") {
  const auto* nvrtc = compiler();
  if (!nvrtc) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto program = ss::test::check_source_text(
      "dim N = 3\n\nfn f(x: [b N]) -> [b N] = tanh(x * 0.123457) + 0.987654\n");
  const auto g = ss::lower::lower_function(program->typed, "f");
  const auto kernels = ss::ir::plan_fusion(g);
  REQUIRE(kernels.size() == 1);
  const auto source =
      ss::cuda::elementwise_source(kernels[0], ss::ir::inner_broadcast(g, kernels[0]), "cached");
  std::map<std::string, std::string> stored;
  const ss::CodeCache store{
      [&](const std::string& key, std::string* bytes) {
        if (!stored.count(key)) return false;
        *bytes = stored.at(key);
        return true;
      },
      [&](const std::string& key, std::string_view bytes) { stored[key] = std::string(bytes); }};
  using Origin = ss::cuda::CodeCacheNvrtc::Origin;
  const auto ptx = [](const auto& result) { return std::get<ss::nvrtc::Output>(result).code; };
  std::string first;
  {
    ss::cuda::CodeCacheNvrtc cache(*nvrtc, store);
    Origin origin{};
    const auto a = cache.compile(source, "cached.cu", {.sm = 90}, kOptions, &origin);
    CHECK(origin == Origin::compiled);
    first = ptx(a);
    const auto b = cache.compile(source, "cached.cu", {.sm = 90}, kOptions, &origin);
    CHECK(origin == Origin::memory);
    CHECK(ptx(b) == first);
    // Another target or option is other code.
    cache.compile(source, "cached.cu", {.sm = 80}, kOptions, &origin);
    CHECK(origin == Origin::compiled);
  }
  CHECK(stored.size() == 2);
  // A new process (a new cache, the same store): from the store.
  ss::cuda::CodeCacheNvrtc again(*nvrtc, store);
  Origin origin{};
  CHECK(ptx(again.compile(source, "cached.cu", {.sm = 90}, kOptions, &origin)) == first);
  CHECK(origin == Origin::store);
  // An entry for other code under the key is not taken.
  for (auto& [key, bytes] : stored) bytes[bytes.size() / 3] ^= 1;
  ss::cuda::CodeCacheNvrtc damaged(*nvrtc, store);
  damaged.compile(source, "cached.cu", {.sm = 90}, kOptions, &origin);
  CHECK(origin == Origin::compiled);
}

TEST_CASE("each function of two values is a fused kernel's step in float alone, for NVRTC") {
  const auto* nvrtc = compiler();
  if (!nvrtc) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  // Per types/binary.def row: x op y over two float inputs (two bool
  // inputs for logic), a bool result taken through a where.
  using Kind = ss::ir::FusedStep::Kind;
  std::string all;
  std::vector<std::string> names;
  const auto& rows = ss::types::binary_functions();
  for (std::size_t k = 0; k < rows.size(); ++k) {
    ss::ir::FusedKernel kernel;
    kernel.inputs = {0, 1};
    const Kind load =
        rows[k].result == ss::types::BinaryResult::logic ? Kind::load_bool : Kind::load;
    kernel.steps = {{.kind = load, .a = 0},
                    {.kind = load, .a = 1},
                    {.kind = Kind::binary, .sub = static_cast<int>(k), .a = 0, .b = 1}};
    if (ss::types::yields_bool(rows[k].result)) {
      kernel.steps.push_back({.kind = Kind::constant, .value = 1.0f});
      kernel.steps.push_back({.kind = Kind::constant, .value = -1.0f});
      kernel.steps.push_back({.kind = Kind::where, .a = 2, .b = 3, .c = 4});
    }
    names.push_back(std::string("row_") + rows[k].op);
    all += ss::cuda::elementwise_source(kernel, {0, 0}, names.back());
  }
  compiles_in_float(*nvrtc, all, names);
}
