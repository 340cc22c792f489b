// Frames (api/frames.hpp): a call with values runs in the frame for its
// inputs' shapes, its memory planned by the first call at them. What they
// must never change: the results (the same bits as the named-tensor path,
// which runs without frames, at every size and after evictions), results a
// host keeps from an earlier call, and calls on two threads at once.
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "shapescript/shapescript.h"
#include "shapescript/shapescript.hpp"
#include "support/paths.hpp"

namespace {

const char* const kMlp = R"(
dim I = 12
dim H = 16
dim O = 5

model Mlp:
    param w1: [I H] = glorot
    param b1: [H] = uniform(low=-0.5, high=0.5)
    param w2: [H O] = glorot
    param b2: [O] = uniform(low=-0.5, high=0.5)

fn logits(m: Mlp, x: [b I]) -> [b O]:
    h = tanh(x @ m.w1 + m.b1)
    return softmax(h @ m.w2 + m.b2, over=O)
)";

ss::Engine fast_engine() {
  ss::EngineOptions options;
  options.jit_library = ss::test::kJitPath;
  return ss::Engine(options);
}

std::vector<float> draw(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(gen);
  return v;
}

// The forward at batch `b` through the named-tensor path: no frames.
std::vector<float> without_frames(const ss::Module& mod, const ss::Value& model,
                                  const std::vector<float>& x, std::int64_t b) {
  std::map<std::string, ss::Tensor> named;
  for (const auto& [path, t] : model.tensors()) named["m." + path] = t;
  named["x"] = ss::Tensor::view(x.data(), {b, 12});
  const auto r = mod.call("logits", {}, named);
  REQUIRE(r);
  const ss::Tensor& out = r.outputs.at(0);
  const auto* p = static_cast<const float*>(out.data());
  return {p, p + out.size()};
}

// The forward at batch `b` into `out` through call_into: in a frame.
bool in_frame(const ss::Module& mod, const ss::Value& model, const std::vector<float>& x,
              std::int64_t b, std::vector<float>& out) {
  out.resize(static_cast<std::size_t>(b) * 5);
  return bool(mod.call_into("logits", {model, ss::Tensor::view(x.data(), {b, 12})},
                            {ss::Tensor::view(out.data(), {b, 5})}));
}

// A fresh engine, the MLP loaded, a model drawn with `seed`.
struct Loaded {
  ss::Engine engine;
  ss::Module mod;
  ss::Value model;
  explicit Loaded(std::uint64_t seed) : engine(fast_engine()) {
    mod = engine.load_source(kMlp, "mlp.ss");
    REQUIRE(mod);
    model = mod.make("Mlp", {.seed = seed});
  }
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("calls in frames give the named-tensor path's bits at every size, past the kept four") {
  const Loaded m(4);
  const ss::Module& mod = m.mod;
  const ss::Value& model = m.model;
  // Six sizes, twice round: frames made, evicted (four kept) and made again.
  for (int round = 0; round < 2; ++round)
    for (const std::int64_t b : {1, 7, 64, 3, 1, 100, 2, 7}) {
      CAPTURE(b);
      const auto x = draw(static_cast<std::size_t>(b) * 12, static_cast<std::uint32_t>(b + round));
      std::vector<float> out;
      REQUIRE(in_frame(mod, model, x, b, out));
      CHECK(same_bits(out, without_frames(mod, model, x, b)));
    }
}

TEST_CASE("a result the host keeps from a call is never written by the calls after it") {
  const Loaded m(5);
  const ss::Module& mod = m.mod;
  const ss::Value& model = m.model;
  const std::int64_t b = 8;
  const auto x1 = draw(b * 12, 1), x2 = draw(b * 12, 2);
  // Its frame made by call_into first (results dropped inside the call),
  // then a call whose result the host keeps as a value.
  std::vector<float> out;
  REQUIRE(in_frame(mod, model, x1, b, out));
  const auto kept = mod.call("logits", {model, ss::Tensor::view(x1.data(), {b, 12})});
  REQUIRE(kept);
  const ss::Tensor held = kept.values.at(0).tensor();
  const auto* p = static_cast<const float*>(held.data());
  const std::vector<float> before(p, p + held.size());
  CHECK(same_bits(before, out));
  for (int i = 0; i < 5; ++i) REQUIRE(in_frame(mod, model, x2, b, out));
  const auto* q = static_cast<const float*>(held.data());
  CHECK(same_bits(std::vector<float>(q, q + held.size()), before));
  CHECK(same_bits(out, without_frames(mod, model, x2, b)));
}

TEST_CASE("two threads calling one function at one size each get their own results") {
  const Loaded m(6);
  const ss::Module& mod = m.mod;
  const ss::Value& model = m.model;
  const std::int64_t b = 16;
  std::vector<std::vector<float>> inputs, expected;
  for (std::uint32_t t = 0; t < 2; ++t) {
    inputs.push_back(draw(b * 12, 10 + t));
    expected.push_back(without_frames(mod, model, inputs.back(), b));
  }
  int wrong[2] = {0, 0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      std::vector<float> out;
      for (int i = 0; i < 300; ++i)
        if (!in_frame(mod, model, inputs[static_cast<std::size_t>(t)], b, out) ||
            !same_bits(out, expected[static_cast<std::size_t>(t)]))
          ++wrong[t];
    });
  for (auto& th : threads) th.join();
  CHECK(wrong[0] == 0);
  CHECK(wrong[1] == 0);
}

TEST_CASE("reserve makes a frame ahead, and says what it can't") {
  const ss::Engine engine = fast_engine();
  const ss::Module mod = engine.load_source(kMlp, "mlp.ss");
  REQUIRE(mod);
  CHECK(mod.reserve("logits", {{"b", 32}}).empty());
  const auto unknown = mod.reserve("nothing", {{"b", 32}});
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].code == "E1604");
  const auto unsized = mod.reserve("logits", {});
  REQUIRE(unsized.size() == 1);
  CHECK(unsized[0].code == "E1605");
  CHECK(unsized[0].message.find("`b`") != std::string::npos);
  // A call at the reserved size gives the named-tensor path's bits.
  const ss::Value model = mod.make("Mlp", {.seed = 7});
  const auto x = draw(32 * 12, 3);
  std::vector<float> out;
  REQUIRE(in_frame(mod, model, x, 32, out));
  CHECK(same_bits(out, without_frames(mod, model, x, 32)));
  // The C twin.
  ss_engine* e = ss_engine_new(nullptr, nullptr);
  REQUIRE(e);
  ss_module* m = ss_engine_load_source(e, kMlp, "mlp.ss", nullptr, nullptr);
  REQUIRE(m);
  const char* names[] = {"b"};
  const std::int64_t sizes[] = {8};
  CHECK(ss_module_reserve(m, "logits", 1, names, sizes) == nullptr);
  ss_status* bad = ss_module_reserve(m, "logits", 0, nullptr, nullptr);
  REQUIRE(bad);
  CHECK(std::string(ss_status_code(bad)) == "E1605");
  ss_status_free(bad);
  ss_module_free(m);
  ss_engine_free(e);
}
