// The memory plan: every value a graph doesn't return dies after its last
// reader (ir/memory_plan), its buffer goes back to the pool
// (runtime/core/buffer_pool), and a steady-state training step takes no memory
// from the system.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "ir/memory_plan.hpp"
#include "lower/lower.hpp"
#include "runtime/core/buffer_pool.hpp"
#include "runtime/reference/interpreter.hpp"
#include "shapescript/shapescript.hpp"
#include "support/checked_program.hpp"
#include "support/digits_fixture.hpp"
#include "support/paths.hpp"

namespace {

using ss::runtime::BufferPool;
using ss::runtime::DType;
using ss::runtime::Tensor;

// Where each value is dropped, checked against its readers.
void check_plan(const ss::ir::Graph& g, const std::vector<int>& read_at) {
  const auto plan = ss::ir::plan_releases(g, read_at);
  REQUIRE(plan.size() == g.nodes.size());
  std::vector<int> dropped_at(g.nodes.size(), -1);
  for (std::size_t i = 0; i < plan.size(); ++i)
    for (const int v : plan[i]) {
      CHECK(dropped_at[static_cast<std::size_t>(v)] == -1);  // once
      dropped_at[static_cast<std::size_t>(v)] = static_cast<int>(i);
    }
  for (std::size_t v = 0; v < g.nodes.size(); ++v) {
    CAPTURE(v);
    const bool output = std::count(g.outputs.begin(), g.outputs.end(), static_cast<int>(v)) > 0;
    int last = static_cast<int>(v);
    for (std::size_t u = 0; u < g.nodes.size(); ++u)
      for (const int in : g.nodes[u].in)
        if (in == static_cast<int>(v))
          last = std::max(last, read_at.empty() ? static_cast<int>(u) : read_at[u]);
    CHECK(dropped_at[v] == (output ? -1 : last));
  }
}

}  // namespace

TEST_CASE("each value is dropped once, right after its last reader, outputs never") {
  const auto program = ss::test::check_source_file("examples/digits/digits.ss");
  const auto g = ss::lower::lower_function(program->typed, "train_step");
  REQUIRE(g.nodes.size() > 50);
  check_plan(g, {});
  // An executor that reads nodes 10..19's inputs at node 20 keeps them to there.
  std::vector<int> read_at(g.nodes.size());
  for (std::size_t i = 0; i < read_at.size(); ++i)
    read_at[i] = i >= 10 && i < 20 ? 20 : static_cast<int>(i);
  check_plan(g, read_at);
}

TEST_CASE("a chain of operations reuses the memory of the values that died before it") {
  const auto program = ss::test::check_source_text(
      "fn f(x: [n]) -> [n]:\n"
      "    a = exp(x)\n    b = a * 2.0\n    c = tanh(b)\n    d = c + 1.0\n"
      "    e = sqrt(d)\n    f = e * e\n    g = log(f)\n    h = g - 3.0\n"
      "    return abs(h)\n");
  const auto g = ss::lower::lower_function(program->typed, "f");
  // A size no other test uses, so only this graph's buffers count.
  Tensor x = Tensor::zeros(DType::f32, {12345});
  for (std::int64_t k = 0; k < x.size(); ++k) x.set(k, 0.001 * static_cast<double>(k));
  BufferPool::trim();
  const auto before = BufferPool::stats();
  const auto out = ss::runtime::run_graph(g, {{"x", x}}, program->typed.dims);
  const auto after = BufferPool::stats();
  // Nine values of this size (and constants); no more than three live at once.
  CHECK(after.fresh - before.fresh <= 6);
  CHECK(after.reused - before.reused >= 5);
  CHECK(out.at(0).get(5) ==
        doctest::Approx(
            std::abs(std::log(std::pow(std::sqrt(std::tanh(2 * std::exp(0.005)) + 1), 2)) - 3)));
}

TEST_CASE("a steady-state training step takes no memory from the system") {
  namespace digits = ss::test::digits;
  for (const auto executor : {ss::Executor::fast, ss::Executor::reference}) {
    CAPTURE(static_cast<int>(executor));
    const ss::Module mod =
        ss::Engine({.executor = executor})
            .load_file(std::string(ss::test::kSourceDir) + "/examples/digits/digits.ss",
                       {.sinks = {{"metrics", [](const ss::SinkRecord&) {}}}});
    REQUIRE(mod);
    std::map<std::string, ss::Tensor> inputs;
    for (const auto& [name, a] : digits::parameters())
      inputs[name] = ss::Tensor::of(a.values, a.shape);
    const auto x = digits::pixels(32);
    inputs["batch.pixels"] = ss::Tensor::of(x.values, x.shape);
    inputs["batch.label"] = ss::Tensor::of(digits::labels(32), {32});
    for (const char* name :
         {"opt.lr", "opt.beta1", "opt.beta2", "opt.eps", "opt.weight_decay", "opt.step"})
      inputs[name] = ss::Tensor::scalar(std::string(name) == "opt.lr" ? 1e-2f : 0.5f);
    for (const auto& [name, a] : digits::parameters())
      for (const char* state : {"opt.exp_avg.", "opt.exp_avg_sq."})
        inputs[state + name.substr(2)] =
            ss::Tensor::of(std::vector<float>(a.values.size()), a.shape);
    ss::runtime::BufferPoolStats warm;
    for (int step = 0; step < 4; ++step) {
      if (step == 2) warm = BufferPool::stats();
      const auto r = mod.call("train_step", {}, inputs);
      REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? "" : r.diagnostics[0].render()));
      for (std::size_t i = 0; i < r.updated.size(); ++i) inputs[r.updated[i]] = r.outputs[1 + i];
    }
    const auto now = BufferPool::stats();
    CHECK(now.fresh == warm.fresh);
    CHECK(now.reused - warm.reused > 50);
  }
}
