// The LLVM toolchain, proven end to end through the same path the library
// uses: the core opens libshapescript_jit.so with dlopen, and the module
// builds IR, optimises it at O3 for the host and runs it through ORC LLJIT.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "runtime/fast/jit_module.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

namespace {

// Values that are exact in float, so the sum is exact in any order.
std::vector<float> quarter_steps(std::size_t n) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 7) * 0.25f - 0.5f;
  return x;
}

float exact_scaled_sum(const std::vector<float>& x, float a) {
  double sum = 0;
  for (float v : x) sum += static_cast<double>(v) * a;
  return static_cast<float>(sum);
}

}  // namespace

TEST_CASE("the JIT module compiles a float loop at O3 for the host, vectorised, and runs it") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("built without the JIT (SS_WITH_JIT=OFF)");
    return;
  }
  std::string why;
  auto jit = ss::runtime::JitModule::load(ss::test::kJitPath, &why);
  INFO(why);
  REQUIRE(jit.has_value());
  CHECK(std::string(jit->api().llvm_version()).rfind("19.1", 0) == 0);
  CHECK_FALSE(std::string(jit->api().host_cpu()).empty());

  for (std::size_t n : {0u, 1u, 7u, 1000u, 4099u}) {
    CAPTURE(n);
    const auto x = quarter_steps(n);
    SsJitProbeResult result{};
    char error[512] = {};
    REQUIRE_MESSAGE(jit->api().probe_scaled_sum(x.data(), static_cast<int64_t>(n), 2.0f, &result,
                                                error, sizeof error) == 0,
                    error);
    CHECK(result.value == exact_scaled_sum(x, 2.0f));
    // `reassoc` on the reduction plus the host TargetMachine in the pass
    // builder: without either, LLVM leaves the loop scalar.
    CHECK(result.vector_width >= 4);
    CHECK(result.compile_ms > 0);
  }
}

TEST_CASE("the core finds the JIT module beside itself") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  std::string why;
  auto jit = ss::runtime::JitModule::load("", &why);
  INFO(why);
  REQUIRE(jit.has_value());
  CHECK(jit->path().find("libshapescript_jit.so") != std::string::npos);
}

TEST_CASE("a missing or foreign JIT module is reported, not fatal") {
  std::string why;
  CHECK_FALSE(ss::runtime::JitModule::load("/nonexistent/libshapescript_jit.so", &why).has_value());
  CHECK(why.find("/nonexistent/libshapescript_jit.so") != std::string::npos);

  why.clear();
  CHECK_FALSE(ss::runtime::JitModule::load("libm.so.6", &why).has_value());
  CHECK(why.find("has no ss_jit_api") != std::string::npos);
}
