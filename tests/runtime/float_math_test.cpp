// Float32 math in the fast executor's compiled kernels against the
// reference's double formulas: every function of one value within
// docs/numerics.md's `fast-function` row (4 ulp) over a sweep of its range,
// specials and subnormals included; gelu, whose inner step rounds, within
// `fast-elementwise`; SLEEF's vector functions called where the process
// finds libsleef, by the kernels and by softmax's own loop; the same bits
// again for the same thread count.
#include <dlfcn.h>
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "lower/lower.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/fast/jit_module.hpp"
#include "runtime/fast/vector_exp.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/checked_program.hpp"
#include "support/fast_executor.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;

// Specials, subnormals, every decade of both signs, a dense stretch where
// the functions bend, and the edges where exp overflows and underflows.
std::vector<float> sweep() {
  std::vector<float> x = {0.0f,    -0.0f,   INFINITY, -INFINITY, NAN,    FLT_MIN, -FLT_MIN, 1e-40f,
                          -1e-40f, 1e-45f,  FLT_MAX,  -FLT_MAX,  88.72f, 88.73f,  89.0f,    -87.3f,
                          -103.9f, -104.0f, -150.0f,  1.0f,      -1.0f,  0.5f,    9.0f,     -9.0f};
  for (int e = -44; e <= 38; ++e)
    for (const float m : {1.0f, 2.5f, 7.25f}) {
      const float v = m * std::pow(10.0f, static_cast<float>(e));
      if (std::isfinite(v)) {
        x.push_back(v);
        x.push_back(-v);
      }
    }
  for (int k = 0; k <= 4000; ++k) x.push_back(-25.0f + 50.0f * static_cast<float>(k) / 4000.0f);
  for (int k = 0; k < 1000; ++k)
    x.push_back(static_cast<float>(120.0 * std::sin(0.37 * k)));  // -120..120, irregularly
  // Again, each a few ulps along, until two threads split it (the fast
  // executor's kMinElements): not a multiple of any vector width.
  const std::size_t one = x.size();
  for (int shift = 1; x.size() < 70000; ++shift)
    for (std::size_t k = 0; k < one; ++k) {
      float v = x[k];
      for (int s = 0; s < shift && std::isfinite(v); ++s) v = std::nextafter(v, INFINITY);
      x.push_back(v);
    }
  return x;
}

Tensor tensor_of(const std::vector<float>& v) {
  Tensor t = Tensor::zeros(DType::f32, {static_cast<std::int64_t>(v.size())});
  for (std::size_t k = 0; k < v.size(); ++k) t.set(static_cast<std::int64_t>(k), v[k]);
  return t;
}

constexpr const char* kFunctions[] = {"exp", "log", "tanh", "sigmoid", "sqrt", "abs", "relu"};

std::string program_text() {
  std::string text = "fn f(x: [n]) -> (";
  for (std::size_t k = 0; k < std::size(kFunctions); ++k) text += k ? ", [n]" : "[n]";
  text += ", [n], [n]):\n    return ";
  for (const char* f : kFunctions) text += std::string(f) + "(x), ";
  return text + "-x, gelu(x)\n";
}

// The worst disagreement of `got` with `want`, in float ulps at `want`.
double worst_ulps(const std::vector<double>& want, const std::vector<double>& got) {
  double worst = 0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (want[k] == got[k] || (std::isnan(want[k]) && std::isnan(got[k]))) continue;
    worst = std::max(worst, std::fabs(got[k] - want[k]) / ss::test::float_ulp(want[k]));
  }
  return worst;
}

bool same_bits(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t o = 0; o < a.size(); ++o) {
    const auto x = a[o].values(), y = b[o].values();
    for (std::size_t k = 0; k < x.size(); ++k)
      if (!(x[k] == y[k] || (std::isnan(x[k]) && std::isnan(y[k]))) ||
          std::signbit(x[k]) != std::signbit(y[k]))
        return false;
  }
  return true;
}

}  // namespace

TEST_CASE("each function of one value computes in float32 within 4 ulp of the reference") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  const auto program = ss::test::check_source_text(program_text());
  const auto g = ss::lower::lower_function(program->typed, "f");
  const std::map<std::string, Tensor> inputs = {{"x", tensor_of(sweep())}};
  const auto reference = ss::runtime::run_graph(g, inputs, program->typed.dims);
  for (const int threads : {1, 2}) {
    CAPTURE(threads);
    auto fast =
        ss::test::make_fast_executor({.threads = threads, .jit_library = ss::test::kJitPath});
    const auto got = ss::runtime::run_graph(g, inputs, program->typed.dims, nullptr, fast.get());
    REQUIRE(got.size() == std::size(kFunctions) + 2);
    for (std::size_t o = 0; o < got.size(); ++o) {
      const bool gelu = o == got.size() - 1;
      const std::string name = o < std::size(kFunctions) ? kFunctions[o] : gelu ? "gelu" : "neg";
      CAPTURE(name);
      const auto want = reference[o].values(), have = got[o].values();
      const auto& row = ss::test::tolerance(gelu ? "fast-elementwise" : "fast-function");
      const double scale = ss::test::tensor_scale(want);
      std::size_t wrong = 0;
      for (std::size_t k = 0; k < want.size(); ++k)
        if (!ss::test::agrees(have[k], want[k], scale, row) && wrong++ < 5)
          MESSAGE(name << "(" << inputs.at("x").values()[k] << "): reference " << want[k]
                       << ", fast " << have[k]);
      CHECK(wrong == 0);
      if (threads == 1) MESSAGE(name << ": at most " << worst_ulps(want, have) << " ulp");
    }
    // The five the reference computes in double (exp, log, tanh, sigmoid,
    // gelu) ran as compiled kernels; sqrt, abs, relu and neg, exact in
    // float, as the executor's loops.
    CHECK(ss::runtime::fusion_counts(*fast).runs == 5);
    if (threads == 1) {  // (the plan, made once per graph in the process, keeps the paths)
      const auto nodes = ss::runtime::executor_nodes(*fast);
      REQUIRE(nodes.count("fused") == 1);
      REQUIRE(nodes.count("loops") == 1);
      CHECK(nodes.at("fused") == 5);
      CHECK(nodes.at("loops") == 4);
    }
    // The same bits again for the same thread count.
    CHECK(same_bits(got,
                    ss::runtime::run_graph(g, inputs, program->typed.dims, nullptr, fast.get())));
  }
}

TEST_CASE("compiled exp, log, tanh and erf call SLEEF's vector functions where libsleef is") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  std::string why;
  auto jit = ss::runtime::JitModule::load(ss::test::kJitPath, &why);
  INFO(why);
  REQUIRE(jit.has_value());
  void* sleef = ::dlopen("libsleef.so.3", RTLD_NOW | RTLD_LOCAL);
  const std::string target = jit->api().target_id();
  CAPTURE(target);
  CHECK(target.find(sleef ? " sleef 3 " : " libm") != std::string::npos);
  for (const int function : {SS_JIT_EXP, SS_JIT_LOG, SS_JIT_TANH, SS_JIT_ERF}) {
    CAPTURE(function);
    const SsJitStep steps[] = {{.op = SS_JIT_LOAD, .a = 0, .b = -1, .c = -1},
                               {.op = SS_JIT_CALL, .kind = function, .a = 0, .b = -1, .c = -1}};
    const std::uint8_t broadcast[] = {0};
    const SsJitKernelDesc kernel = {steps, 2, 1, broadcast};
    std::string object;
    char error[512] = {};
    REQUIRE_MESSAGE(jit->api().compile_elementwise(
                        &kernel, 1, ("ss_float_math_" + std::to_string(function) + "_").c_str(),
                        [](void* out, const void* data, size_t size) {
                          static_cast<std::string*>(out)->append(static_cast<const char*>(data),
                                                                 size);
                        },
                        &object, error, sizeof error) == 0,
                    error);
    const char* stems[] = {"Sleef_expf", "Sleef_logf", "Sleef_tanhf", "Sleef_erff"};
    // The object names the vector function it calls (and libm's for the
    // iterations left over); without SLEEF, libm's float function alone.
    CHECK((object.find(stems[function]) != std::string::npos) == (sleef != nullptr));
    const char* scalar[] = {"expf", "logf", "tanhf", "erff"};
    CHECK(object.find(scalar[function]) != std::string::npos);
  }
  if (sleef) ::dlclose(sleef);
  if (!sleef)
    ss::test::skip("libsleef.so.3 isn't installed: the kernels call libm's float functions");
}

TEST_CASE("softmax's exps: SLEEF's vector expf where the CPU and libsleef allow, any split") {
  void* library = ::dlopen("libsleef.so.3", RTLD_NOW | RTLD_LOCAL);
  __builtin_cpu_init();
  const bool vectors =
      library && ((__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ||
                  __builtin_cpu_supports("avx512f"));
  const std::string name = ss::runtime::fast::vector_exp_name();
  CAPTURE(name);
  CHECK((name.rfind("sleef", 0) == 0) == vectors);
  if (__builtin_cpu_supports("avx512f") && library) CHECK(name == "sleef avx512f");
  std::vector<float> x(77);
  for (std::size_t k = 0; k < x.size(); ++k)
    x[k] =
        k % 19 == 4 ? -INFINITY : static_cast<float>(30 * std::sin(1.7 * static_cast<double>(k)));
  for (const std::int64_t n : {1, 7, 8, 9, 15, 16, 17, 33, 77}) {
    CAPTURE(n);
    std::vector<float> out(static_cast<std::size_t>(n));
    const float sum = ss::runtime::fast::exp_sum(x.data(), 2.5f, out.data(), n);
    double want_sum = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      // The shift is subtracted in float, then exp: within 4 ulp of exp of that.
      const double want = std::exp(static_cast<double>(x[static_cast<std::size_t>(k)] - 2.5f));
      want_sum += want;
      CHECK(ss::test::agrees(out[static_cast<std::size_t>(k)],
                             static_cast<double>(static_cast<float>(want)), 1,
                             ss::test::tolerance("fast-function")));
    }
    CHECK(sum == doctest::Approx(want_sum).epsilon(1e-6));
    // Each element's exp is the same bits wherever it sits in the row.
    std::vector<float> shifted(static_cast<std::size_t>(n));
    if (n > 1) {
      ss::runtime::fast::exp_sum(x.data() + 1, 2.5f, shifted.data(), n - 1);
      for (std::int64_t k = 1; k < n; ++k)
        CHECK(shifted[static_cast<std::size_t>(k - 1)] == out[static_cast<std::size_t>(k)]);
    }
  }
  // The row's max as the scalar test finds it: a NaN never taken, in the
  // vector body or the tail.
  for (const std::int64_t n : {0, 1, 5, 8, 13, 77}) {
    CAPTURE(n);
    std::vector<float> row(x.begin(), x.begin() + n);
    if (n > 3) row[2] = NAN;
    if (n > 12) row[12] = NAN;
    float want = -INFINITY;
    for (const float v : row) want = want < v ? v : want;
    CHECK(ss::runtime::fast::row_max(row.data(), n) == want);
  }
  if (library) ::dlclose(library);
  if (!vectors) ss::test::skip("no libsleef or no AVX2: softmax's exps ran on libm's expf");
}
