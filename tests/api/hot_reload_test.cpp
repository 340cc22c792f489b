// Hot reload: a module takes a changed source when it checks, keeping the
// host's state entries that the new program still takes with the same
// shape and dropping the others with a reason; a source with errors
// changes nothing, and the old program keeps running.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "shapescript/shapescript.hpp"

namespace {

// v1: a one-hidden-layer net; v2 widens the hidden layer's output bias
// away (b1 gone), keeps w1, resizes w2, and adds a scale.
constexpr const char* kV1 = R"(dim D = 4
dim H = 8
dim C = 3

model Net:
    param w1: [D H] = normal(std=0.1)
    param b1: [H] = zeros
    param w2: [H C] = normal(std=0.1)

fn logits(m: Net, x: [b D]) -> [b C] = relu(x @ m.w1 + m.b1) @ m.w2
)";

constexpr const char* kV2 = R"(dim D = 4
dim H = 8
dim C = 5

model Net:
    param w1: [D H] = normal(std=0.1)
    param w2: [H C] = normal(std=0.1)
    param scale: [] = ones

fn logits(m: Net, x: [b D]) -> [b C] = relu(x @ m.w1) @ m.w2 * m.scale

fn hidden(m: Net, x: [b D]) -> [b H] = relu(x @ m.w1)
)";

ss::Tensor filled(std::vector<std::int64_t> shape, float value) {
  std::int64_t n = 1;
  for (const auto d : shape) n *= d;
  return ss::Tensor::of(std::vector<float>(static_cast<std::size_t>(n), value), shape);
}

// A host's state for v1's Net.
std::map<std::string, ss::Tensor> v1_state() {
  return {
      {"m.w1", filled({4, 8}, 0.5f)}, {"m.b1", filled({8}, 0.0f)}, {"m.w2", filled({8, 3}, 0.25f)}};
}

}  // namespace

TEST_CASE("a reload keeps the state the new program takes and drops the rest, with reasons") {
  const ss::Engine engine;
  ss::Module m = engine.load_source(kV1, "net.ss");
  REQUIRE(m);
  auto state = v1_state();
  const auto x = filled({2, 4}, 1.0f);
  REQUIRE(m.call("logits", {x}, state));

  const auto report = m.reload(engine, kV2, "net.ss", {}, &state);
  REQUIRE(report);
  CHECK(report.kept == std::vector<std::string>{"m.w1"});
  REQUIRE(report.dropped.size() == 2);
  CHECK(report.dropped[0].first == "m.b1");
  CHECK(report.dropped[0].second == "no function of the new program takes it");
  CHECK(report.dropped[1].first == "m.w2");
  CHECK(report.dropped[1].second == "the new program's is [H C]; this one is [8 3]");
  CHECK(state.size() == 1);  // only what fits is left

  // The new program runs, with the kept w1 and new values for the rest.
  state["m.w2"] = filled({8, 5}, 0.1f);
  state["m.scale"] = ss::Tensor::scalar(2.0f);
  const auto hidden = m.call("hidden", {x}, state);
  REQUIRE(hidden);
  CHECK(hidden.tensor().to_floats().at(0) == doctest::Approx(2.0));  // 4 * 1 * 0.5, kept w1
  const auto out = m.call("logits", {x}, state);
  REQUIRE(out);
  CHECK(out.tensor().shape() == std::vector<std::int64_t>{2, 5});
}

TEST_CASE("a reload with errors changes nothing: the old program keeps running") {
  const ss::Engine engine;
  ss::Module m = engine.load_source(kV1, "net.ss");
  REQUIRE(m);
  auto state = v1_state();
  std::string broken = kV2;
  broken.replace(broken.find("relu(x @ m.w1)\n"), 15, "relu(x @ m.w2)\n");  // [b D] @ [H C]
  const auto report = m.reload(engine, broken, "net.ss", {}, &state);
  CHECK_FALSE(report);
  REQUIRE_FALSE(report.diagnostics.empty());
  CHECK(report.diagnostics[0].code.rfind("E0", 0) == 0);  // a shape error, found by the checker
  CHECK(report.kept.empty());
  CHECK(report.dropped.empty());
  CHECK(state.size() == 3);  // untouched
  CHECK(m);
  const auto still = m.call("logits", {filled({2, 4}, 1.0f)}, state);  // the old program
  REQUIRE(still);
  CHECK(still.tensor().shape() == std::vector<std::int64_t>{2, 3});
  CHECK(m.call("hidden", {filled({2, 4}, 1.0f)}, state).diagnostics.at(0).code == "E1604");
}

namespace {

// Two programs of one layout that differ in every node after the product:
// a call's result is all 22 (kA) or all 33 (kB) for x = 1, never a mix.
constexpr const char* kA = R"(dim D = 4

model M:
    param w: [D D] = zeros

fn f(m: M, x: [n D]) -> [n D] = (x @ m.w + x) * 2.0 + 20.0
)";

constexpr const char* kB = R"(dim D = 4

model M:
    param w: [D D] = zeros

fn f(m: M, x: [n D]) -> [n D] = (x @ m.w + x) * 3.0 + 30.0
)";

}  // namespace

TEST_CASE("threads call while another reloads 1,000 times: every call runs one whole program") {
  const ss::Engine engine;
  ss::Module mod = engine.load_source(kA, "ab.ss");
  REQUIRE(mod);
  const ss::Value m = mod.make("M");
  REQUIRE(m);
  const ss::Tensor x = filled({8, 4}, 1.0f);
  std::atomic<bool> done{false};
  std::atomic<int> calls{0}, wrong{0};
  std::vector<std::string> problems;  // the first few, for the report
  std::mutex problems_mutex;
  const auto caller = [&] {
    while (!done.load()) {
      const auto r = mod.call("f", {m, x});
      std::string problem;
      if (!r) {
        problem = r.diagnostics.empty() ? "failed" : r.diagnostics[0].render();
      } else {
        const auto values = r.tensor().to_floats();
        const float first = values.empty() ? 0.0f : values[0];
        if (values.size() != 32 || (first != 22.0f && first != 33.0f))
          problem = "a result of " + std::to_string(first);
        for (const float v : values)
          if (v != first) problem = "a mixed result";
      }
      ++calls;
      if (!problem.empty()) {
        ++wrong;
        std::lock_guard lock(problems_mutex);
        if (problems.size() < 3) problems.push_back(problem);
      }
    }
  };
  std::thread a(caller), b(caller);
  int reloaded = 0, kept = 0;
  for (int k = 0; k < 1000; ++k) {
    const auto report = mod.reload(engine, k % 2 == 0 ? kB : kA, "ab.ss");
    reloaded += report ? 1 : 0;
    kept += report.kept_values.size() == 1 && report.dropped_values.empty() ? 1 : 0;
  }
  done = true;
  a.join();
  b.join();
  CHECK(reloaded == 1000);
  CHECK(kept == 1000);  // the model fits both programs: it lives on
  CHECK(calls.load() > 0);
  CHECK_MESSAGE(wrong.load() == 0, (problems.empty() ? std::string() : problems[0]));
  // The last reload (k = 999) published kA.
  const auto last = mod.call("f", {m, x});
  REQUIRE(last);
  CHECK(last.tensor().to_floats()[0] == 22.0f);
}
