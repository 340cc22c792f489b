// Every function of two values (src/types/binary.def) compiled by the fast
// executor's JIT gives the reference's bits at every pair of a sweep:
// specials, signed zeros, NaN and ordinary numbers. Each row is one step of
// a fused kernel (x op y, times ones, so the kernel isn't a lone
// operation), its formula's terms in float where the row is kExact and
// widened where it is kDouble.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "lower/lower.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/checked_program.hpp"
#include "support/fast_executor.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;

const char* const kProgram =
    R"(fn f(x: [n], y: [n], one: [n]) -> ([n], [n], [n], [n], [n], [n], [n], [n], [n], [n], [n], [n], [n], [n], [n], [n], [n]):
    return (x + y) * one, (x - y) * one, (x * y) * one, (x / y) * one, (x ** y) * one, (x % y) * one, (x // y) * one, maximum(x, y) * one, minimum(x, y) * one, where(x < y, one, -one), where(x <= y, one, -one), where(x > y, one, -one), where(x >= y, one, -one), where(x == y, one, -one), where(x != y, one, -one), where(x < one and y < one, one, -one), where(x < one or y < one, one, -one)
)";

std::vector<float> values() {
  std::vector<float> v = {0.0f,   -0.0f,   INFINITY, -INFINITY, NAN,   1.0f,  -1.0f,   0.1f,
                          -0.1f,  0.5f,    2.5f,     -2.5f,     3.0f,  -3.0f, 7.0f,    -7.0f,
                          1e-38f, -1e-45f, 1e30f,    -1e30f,    5.75f, 0.3f,  FLT_MAX, -FLT_MIN};
  for (int k = 0; k < 60; ++k) v.push_back(static_cast<float>(9.0 * std::sin(0.71 * k)));
  return v;
}

Tensor tensor_of(const std::vector<float>& v) {
  return Tensor::from_values(DType::f32, {static_cast<std::int64_t>(v.size())},
                             std::vector<double>(v.begin(), v.end()));
}

}  // namespace

TEST_CASE("each function of two values compiles to the reference's bits, NaN and -0 included") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  const auto v = values();
  std::vector<float> xs, ys;
  for (const float a : v)
    for (const float b : v) {
      xs.push_back(a);
      ys.push_back(b);
    }
  const auto program = ss::test::check_source_text(kProgram);
  const auto g = ss::lower::lower_function(program->typed, "f");
  const std::map<std::string, Tensor> inputs = {
      {"x", tensor_of(xs)},
      {"y", tensor_of(ys)},
      {"one", tensor_of(std::vector<float>(xs.size(), 1.0f))}};
  const auto reference = ss::runtime::run_graph(g, inputs, program->typed.dims);
  auto fast = ss::test::make_fast_executor({.threads = 1, .jit_library = ss::test::kJitPath});
  const auto got = ss::runtime::run_graph(g, inputs, program->typed.dims, nullptr, fast.get());
  REQUIRE(got.size() == 17);
  REQUIRE(reference.size() == 17);
  const auto nodes = ss::runtime::executor_nodes(*fast);
  // Each row's node in a compiled kernel with the node after it (its
  // product, or its where): 34 nodes. (`-one`, `x < one` and `y < one`,
  // shared by the last two, run as loops.)
  REQUIRE(nodes.count("fused") == 1);
  CHECK(nodes.at("fused") == 34);
  for (std::size_t o = 0; o < got.size(); ++o) {
    CAPTURE(o);
    const auto want = reference[o].values(), have = got[o].values();
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < want.size(); ++k) {
      const bool same = (std::isnan(want[k]) && std::isnan(have[k])) ||
                        (want[k] == have[k] && std::signbit(want[k]) == std::signbit(have[k]));
      if (!same && wrong++ < 5)
        MESSAGE("output " << o << " at " << xs[k] << ", " << ys[k] << ": reference " << want[k]
                          << ", fast " << have[k]);
    }
    CHECK(wrong == 0);
  }
}
