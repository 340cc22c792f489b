// Calls planned at load: the executor plans every graph a call may run (its
// fused kernels compiled, its release plan made) and compiles the
// controller's functions when the module loads, so a call, the first
// included, plans and compiles nothing.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "shapescript/shapescript.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

namespace {

std::int64_t kernels_made(const ss::ExecutorStats& s) {
  return s.kernels_compiled + s.kernels_from_memory + s.kernels_from_cache;
}

}  // namespace

TEST_CASE("after a load, no call plans a graph or compiles a kernel, the first one included") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build: nothing would compile at a call either");
    return;
  }
  const std::string digits = std::string(ss::test::kSourceDir) + "/examples/digits/digits.ss";
  ss::LoadOptions options;
  options.sinks["metrics"] = [](const ss::SinkRecord&) {};
  for (const auto executor : {ss::Executor::fast, ss::Executor::reference}) {
    CAPTURE(static_cast<int>(executor));
    ss::EngineOptions engine_options;
    engine_options.executor = executor;
    engine_options.jit_library = ss::test::kJitPath;
    const ss::Engine engine(engine_options);
    const ss::Module mod = engine.load_file(digits, options);
    REQUIRE_MESSAGE(mod, mod.diagnostics()[0].render());
    const ss::ExecutorStats loaded = mod.executor_stats();
    // logits, loss, train_step and accuracy, and main's expressions.
    CHECK(loaded.plans_at_load >= 4);
    CHECK(loaded.plans_at_call == 0);
    if (executor == ss::Executor::fast) CHECK(kernels_made(loaded) > 0);  // train_step's, at least

    std::vector<float> w1(64 * 128, 0.01f), b1(128), w2(128 * 10, -0.02f), b2(10), x(5 * 64, 1.f);
    const std::map<std::string, ss::Tensor> params = {
        {"m.w1", ss::Tensor::view(w1.data(), {64, 128})},
        {"m.b1", ss::Tensor::view(b1.data(), {128})},
        {"m.w2", ss::Tensor::view(w2.data(), {128, 10})},
        {"m.b2", ss::Tensor::view(b2.data(), {10})}};
    for (const std::int64_t batch : {5, 1, 5}) {  // a new batch size plans nothing either
      const auto r = mod.call("logits", {ss::Tensor::view(x.data(), {batch, 64})}, params);
      REQUIRE_MESSAGE(r, r.diagnostics.at(0).render());
    }
    const ss::ExecutorStats called = mod.executor_stats();
    CHECK(called.plans_at_call == 0);
    CHECK(called.plans_at_load == loaded.plans_at_load);
    CHECK(kernels_made(called) == kernels_made(loaded));
    if (executor == ss::Executor::fast) CHECK(called.kernel_runs > loaded.kernel_runs);
  }
}

TEST_CASE("a controller function compiles at load: its first call compiles and plans nothing") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build: controller functions are interpreted");
    return;
  }
  const ss::Engine engine({.jit_library = ss::test::kJitPath});
  const std::string file = std::string(ss::test::kSourceDir) + "/tests/programs/run/controller.ss";
  ss::LoadOptions options;
  options.print = [](std::string_view) {};
  const ss::Module mod = engine.load_file(file, options);
  REQUIRE_MESSAGE(mod, mod.diagnostics()[0].render());
  const ss::ExecutorStats loaded = mod.executor_stats();
  CHECK(loaded.plans_at_load >= 2);  // scale, and main's expressions
  std::vector<float> x(2 * 3, 1.5f);
  const auto r = mod.call("main", {4, 0.5, ss::Tensor::view(x.data(), {2, 3})});
  REQUIRE_MESSAGE(r, r.diagnostics.at(0).render());
  const ss::ExecutorStats called = mod.executor_stats();
  CHECK(called.plans_at_call == 0);
  CHECK(kernels_made(called) == kernels_made(loaded));
  REQUIRE(called.functions.count("main"));
  CHECK(called.functions.at("main").kind == "controller");
  CHECK(called.functions.at("main").executor == "compiled");  // compiled at load, run so
}
