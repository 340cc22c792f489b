// Values the library owns: made, loaded, saved, called with, changed in
// place by `mut` calls, read back; every function callable with them.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>

#include <unistd.h>

#include "shapescript/shapescript.hpp"

namespace {

constexpr const char* kPolicy = R"(dim D = 4
dim H = 8
dim A = 3

data Step:
    obs: [D]
    target: [A]

model Policy:
    param w1: [D H] = glorot
    param b1: [H] = zeros
    param w2: [H A] = glorot
    param b2: [A] = zeros

fn act(m: Policy, x: [b D]) -> [b A]:
    h = relu(x @ m.w1 + m.b1)
    return h @ m.w2 + m.b2

fn act_and_sum(m: Policy, x: [b D]) -> ([b A], []):
    y = act(m, x)
    return y, sum(sum(y, over=A), over=b)

fn loss(m: Policy, batch: [b] Step) -> []:
    d = act(m, batch.obs) - batch.target
    return mean(mean(d * d, over=A), over=b)

fn train_step(mut m: Policy, mut opt: AdamW[Policy], batch: [b] Step) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l

fn fresh(m: Policy) -> (Policy, AdamW[Policy]):
    m2 = Policy(seed=7)
    return m2, AdamW(m2, lr=0.5)

fn fit(mut m: Policy, mut opt: AdamW[Policy], data: Dataset[Step], epochs: int) -> []:
    l = 0.0
    for e in range(epochs):
        for batch in data |> batches(4):
            l = train_step(mut m, mut opt, batch)
    print("fitted", epochs, "epochs")
    return l
)";

std::vector<float> ramp(std::size_t n, float scale, float shift = 0) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7 + 3) % 11) + shift;
  return v;
}

// The named-tensor path's arguments for a model value: {"m.w1", w1}, ...
std::map<std::string, ss::Tensor> named(const ss::Value& model, const std::string& param) {
  std::map<std::string, ss::Tensor> out;
  for (const auto& [path, t] : model.tensors()) out[param + "." + path] = t;
  return out;
}

bool same_bits(const ss::Tensor& a, const ss::Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.size()) * 4) == 0;
}

struct Fixture {
  ss::Engine engine;
  std::vector<std::string> printed;
  ss::Module mod;
  Fixture() {
    ss::LoadOptions options;
    options.print = [this](std::string_view line) { printed.emplace_back(line); };
    mod = engine.load_source(kPolicy, "policy.ss", options);
    REQUIRE(mod);
  }
  ss::Value replay(std::size_t n) {
    const auto obs = ramp(n * 4, 0.1f), target = ramp(n * 3, 0.05f, -0.2f);
    std::vector<ss::Diagnostic> errors;
    ss::Value data =
        mod.dataset("Step",
                    {{"obs", ss::Tensor::view(obs.data(), {std::int64_t(n), 4})},
                     {"target", ss::Tensor::view(target.data(), {std::int64_t(n), 3})}},
                    &errors);
    REQUIRE(errors.empty());
    return data;
  }
};

}  // namespace

TEST_CASE("a resident model called with values gives the named-tensor path's bits") {
  Fixture f;
  const ss::Value policy = f.mod.make("Policy", {.seed = 3});
  REQUIRE(policy.kind() == ss::Value::Kind::model);
  CHECK(policy.type() == "Policy");
  CHECK(policy.version() == 1);
  CHECK(policy.label() == "Policy(seed=3)");
  CHECK(policy.paths() == std::vector<std::string>{"b1", "b2", "w1", "w2"});
  std::vector<std::string> dataset_paths;
  for (const auto& [path, t] : f.replay(4).tensors()) dataset_paths.push_back(path);
  CHECK(f.replay(4).paths() == dataset_paths);
  CHECK(dataset_paths == std::vector<std::string>{"obs", "target"});
  const auto obs = ramp(2 * 4, 0.25f);
  const ss::Tensor x = ss::Tensor::view(obs.data(), {2, 4});
  const ss::CallResult by_value = f.mod.call("act", {policy, x});
  REQUIRE(by_value);
  REQUIRE(by_value.values.size() == 1);
  CHECK(by_value.outputs.empty());  // nothing copied out unless read
  CHECK(by_value.value().type() == "[2 3]");
  const ss::CallResult by_name = f.mod.call("act", {x}, named(policy, "m"));
  REQUIRE(by_name);
  CHECK(same_bits(by_value.tensor(), by_name.tensor()));
  // The same seed makes the same model; another seed another.
  CHECK(same_bits(f.mod.make("Policy", {.seed = 3}).tensors().at("w1"), policy.tensors().at("w1")));
  CHECK_FALSE(
      same_bits(f.mod.make("Policy", {.seed = 4}).tensors().at("w1"), policy.tensors().at("w1")));

  // A tuple's items, each a value.
  const auto both = f.mod.call("act_and_sum", {policy, x});
  REQUIRE(both.values.size() == 2);
  CHECK(same_bits(both.values[0].tensor(), by_name.tensor()));
  CHECK(both.values[1].type() == "[]");
}

TEST_CASE("mut calls change a value in place: every handle sees the new version, a copy doesn't") {
  Fixture f;
  ss::Value policy = f.mod.make("Policy", {.seed = 0});
  const ss::Value same_handle = policy;
  const ss::Value kept = f.mod.copy(policy);
  ss::Value opt = f.mod.make_optimizer("AdamW", policy, {{"lr", 0.05}});
  REQUIRE(opt);
  CHECK(opt.type() == "AdamW[Policy]");
  const auto obs = ramp(4 * 4, 0.1f), target = ramp(4 * 3, 0.05f, -0.2f);
  const ss::Value batch =
      f.mod.batch("Step", {{"obs", ss::Tensor::view(obs.data(), {4, 4})},
                           {"target", ss::Tensor::view(target.data(), {4, 3})}});
  REQUIRE(batch.type() == "[4] Step");

  // The same step on the named-tensor path, from the same start.
  auto by_name = named(policy, "m");
  for (const auto& [path, t] : opt.tensors()) by_name["opt." + path] = t;
  by_name["batch.obs"] = ss::Tensor::view(obs.data(), {4, 4});
  by_name["batch.target"] = ss::Tensor::view(target.data(), {4, 3});
  const auto reference = f.mod.call("train_step", {}, by_name);
  REQUIRE(reference);

  double first = 0, last = 0;
  for (int step = 0; step < 20; ++step) {
    const auto r = f.mod.call("train_step", {ss::mut(policy), ss::mut(opt), batch});
    REQUIRE(r);
    (step == 0 ? first : last) = r.value().number();
    if (step == 0) {
      // Step one's new weights are the named path's `m.w1` output.
      for (std::size_t k = 0; k < reference.updated.size(); ++k)
        if (reference.updated[k] == "m.w1")
          CHECK(same_bits(policy.tensors().at("w1"), reference.outputs[1 + k]));
    }
  }
  CHECK(last < first);
  CHECK(policy.version() == 21);
  CHECK(same_handle.version() == 21);
  CHECK(same_bits(same_handle.tensors().at("w1"), policy.tensors().at("w1")));
  CHECK(kept.version() == 1);
  CHECK_FALSE(same_bits(kept.tensors().at("w1"), policy.tensors().at("w1")));
  CHECK(opt.version() == 21);
  CHECK(opt.tensors().at("step").to_floats()[0] == 20.0f);
}

TEST_CASE("a controller function is called with values, its mut arguments and print come back") {
  Fixture f;
  ss::Value policy = f.mod.make("Policy", {.seed = 1});
  ss::Value opt = f.mod.make_optimizer("AdamW", policy, {{"lr", 0.01}});
  const ss::Value data = f.replay(12);
  const ss::Tensor before = policy.tensors().at("w2");
  const auto r = f.mod.call("fit", {ss::mut(policy), ss::mut(opt), data, 2});
  REQUIRE(r);
  REQUIRE(r.values.size() == 1);
  CHECK(std::isfinite(r.value().number()));
  CHECK(policy.version() == 2);  // one new version per call, however many steps it took
  CHECK(opt.tensors().at("step").to_floats()[0] == 6.0f);  // 2 epochs of 3 batches
  CHECK_FALSE(same_bits(before, policy.tensors().at("w2")));
  REQUIRE(f.printed.size() == 1);
  CHECK(f.printed[0] == "fitted 2 epochs\n");

  // A model and an optimiser made in the controller come back as values
  // of their types, usable at once.
  const auto made = f.mod.call("fresh", {policy});
  REQUIRE(made);
  REQUIRE(made.values.size() == 2);
  CHECK(made.values[0].type() == "Policy");
  CHECK(made.values[1].type() == "AdamW[Policy]");
  ss::Value m2 = made.values[0], opt2 = made.values[1];
  CHECK(f.mod.call("fit", {ss::mut(m2), ss::mut(opt2), data, 1}));
  CHECK(m2.version() == 2);
}

TEST_CASE("values save and load through safetensors, with a PyTorch name map") {
  Fixture f;
  const ss::Value policy = f.mod.make("Policy", {.seed = 5});
  std::string bytes;
  REQUIRE(f.mod.save_bytes(policy, &bytes).empty());
  const ss::Value back = f.mod.load_bytes("Policy", bytes);
  REQUIRE(back);
  for (const auto& [path, t] : policy.tensors()) CHECK(same_bits(back.tensors().at(path), t));

  // An optimiser round-trips too.
  ss::Value opt = f.mod.make_optimizer("AdamW", policy, {{"lr", 0.02}});
  REQUIRE(f.mod.save_bytes(opt, &bytes).empty());
  const ss::Value opt_back = f.mod.load_bytes("AdamW[Policy]", bytes);
  REQUIRE(opt_back);
  CHECK(opt_back.type() == "AdamW[Policy]");
  CHECK(opt_back.tensors().at("lr").to_floats()[0] == doctest::Approx(0.02));

  // nn.Sequential's keys ("0.weight") renamed to the model's, prefix to
  // prefix: here a file whose tensors are "0.w1", "0.b1", "2.w2", "2.b2".
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("values_test_" + std::to_string(::getpid()) + ".safetensors"))
                               .string();
  {
    const ss::Engine engine;
    const std::string source = std::string(kPolicy) + R"(
model Layer0:
    param w1: [D H] = glorot
    param b1: [H] = zeros
model Layer2:
    param w2: [H A] = glorot
    param b2: [A] = zeros
model Sequential:
    l0: Layer0
    l2: Layer2
)";
    const ss::Module writer = engine.load_source(source, "sequential.ss");
    REQUIRE(writer);
    const ss::Value seq = writer.make("Sequential", {.seed = 9});
    REQUIRE(writer.save(seq, file).empty());
    std::vector<ss::Diagnostic> errors;
    const ss::Value renamed =
        f.mod.load("Policy", file, {.names = {{"l0.", ""}, {"l2.", ""}}}, &errors);
    REQUIRE(errors.empty());
    CHECK(same_bits(renamed.tensors().at("w2"), seq.tensors().at("l2.w2")));
    // Without the map the names don't fit: E1704 names the tensor.
    errors.clear();
    CHECK_FALSE(f.mod.load("Policy", file, {}, &errors));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].code == "E1704");
    CHECK(errors[0].message.find("`w1`") != std::string::npos);
  }
  std::filesystem::remove(file);
}

TEST_CASE("a host's mistakes with values are coded diagnostics") {
  Fixture f;
  const ss::Value policy = f.mod.make("Policy");
  ss::Value opt = f.mod.make_optimizer("AdamW", policy);
  const std::vector<float> obs(4);
  const ss::Tensor x = ss::Tensor::view(obs.data(), {1, 4});
  const auto code = [](const ss::CallResult& r) {
    return r.diagnostics.empty() ? std::string("none") : r.diagnostics[0].code;
  };
  std::vector<ss::Diagnostic> errors;
  CHECK_FALSE(f.mod.make("Polcy", {}, &errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].code == "E1604");
  CHECK(errors[0].help == "its models are `Policy`");
  errors.clear();
  CHECK_FALSE(f.mod.make_optimizer("AdamW", policy, {{"learning_rate", 1.0}}, &errors));
  CHECK(errors.at(0).code == "E1603");

  // An optimiser where the model goes.
  const auto wrong = f.mod.call("act", {opt, x});
  CHECK(code(wrong) == "E1603");
  CHECK(wrong.diagnostics[0].message ==
        "`m` is a Policy; given AdamW(Policy(seed=0)): it is AdamW[Policy]");
  // A `mut` parameter given a value to read, and the other way round.
  const ss::Value batch =
      f.mod.batch("Step", {{"obs", ss::Tensor::of(std::vector<float>(8), {2, 4})},
                           {"target", ss::Tensor::of(std::vector<float>(6), {2, 3})}});
  CHECK(code(f.mod.call("train_step", {policy, ss::mut(opt), batch})) == "E1603");
  CHECK(code(f.mod.call("act", {ss::mut(policy), x})) == "E1603");
  ss::Value same = policy;
  CHECK(code(f.mod.call("train_step", {ss::mut(policy), ss::mut(same), batch})) == "E1603");
  CHECK(policy.version() == 1);  // a failed call publishes nothing
  // Missing and extra arguments; an empty value; a host tensor for a model.
  CHECK(code(f.mod.call("act", {policy})) == "E1605");
  CHECK(code(f.mod.call("act", {policy, x, x})) == "E1603");
  CHECK(code(f.mod.call("act", {ss::Value(), x})) == "E1603");
  CHECK(code(f.mod.call("act", {x, x})) == "E1603");
  // A tensor of the wrong shape, after the values: E1603 names it.
  const ss::Tensor narrow = ss::Tensor::of(std::vector<float>(3), {1, 3});
  const auto shape = f.mod.call("act", {policy, narrow});
  CHECK(code(shape) == "E1603");
  CHECK(shape.diagnostics[0].message == "`x` is [b D]: its axis D has size 4, given 3");
  // A batch whose fields don't fit the record.
  errors.clear();
  CHECK_FALSE(
      f.mod.batch("Step", {{"obs", ss::Tensor::of(std::vector<float>(6), {2, 3})}}, &errors));
  CHECK(errors.at(0).code == "E1603");
  // Only models and optimisers are saved.
  CHECK(f.mod.save(batch, "never.safetensors").at(0).code == "E1702");
}

TEST_CASE("call_into writes the results into the host's buffers") {
  Fixture f;
  const ss::Value policy = f.mod.make("Policy", {.seed = 2});
  const auto obs = ramp(3 * 4, 0.2f);
  const ss::Tensor x = ss::Tensor::view(obs.data(), {3, 4});
  std::vector<float> out(9, -1.0f);
  const auto r = f.mod.call_into("act", {policy, x}, {ss::Tensor::view(out.data(), {3, 3})});
  REQUIRE(r);
  CHECK(r.values.empty());
  CHECK(same_bits(ss::Tensor::view(out.data(), {3, 3}), f.mod.call("act", {policy, x}).tensor()));
  std::vector<float> small(6);
  const auto bad = f.mod.call_into("act", {policy, x}, {ss::Tensor::view(small.data(), {2, 3})});
  CHECK(bad.diagnostics.at(0).code == "E1603");
  CHECK(bad.diagnostics.at(0).message == "output 1 is f32 [3 3], given a buffer of f32 [2 3]");
}

TEST_CASE(
    "an inference thread and a training thread on one model: every result is one whole version") {
  Fixture f;
  ss::Value policy = f.mod.make("Policy", {.seed = 11});
  ss::Value opt = f.mod.make_optimizer("AdamW", policy, {{"lr", 0.05}});
  const ss::Value data = f.replay(8);
  const auto obs = ramp(2 * 4, 0.3f);
  const ss::Tensor x = ss::Tensor::view(obs.data(), {2, 4});
  constexpr int kSteps = 12;
  std::vector<std::map<std::string, ss::Tensor>> versions{policy.tensors()};
  std::vector<ss::Tensor> seen;
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  std::vector<std::string> failures;
  // Until the reader has read `n` times (or a second has passed): each step
  // of the trainer lets the reader in, so reads meet several versions.
  const auto wait_for_reads = [&](int n) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (reads.load() < n && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  };
  std::thread trainer([&] {
    const auto obs8 = data.tensors();
    const ss::Value batch = f.mod.batch("Step", obs8);
    for (int k = 0; k < kSteps; ++k) {
      wait_for_reads(2 * k + 2);
      const auto r = f.mod.call("train_step", {ss::mut(policy), ss::mut(opt), batch});
      if (!r) break;
      versions.push_back(policy.tensors());
    }
    done = true;
  });
  std::thread reader([&] {
    while (!done) {
      const auto r = f.mod.call("act", {policy, x});
      if (r)
        seen.push_back(r.tensor());
      else
        failures.push_back(r.diagnostics.at(0).message);
      ++reads;
    }
  });
  trainer.join();
  reader.join();
  REQUIRE(versions.size() == kSteps + 1);
  CHECK(failures.empty());
  for (const auto& why : failures) MESSAGE(why);
  REQUIRE_FALSE(seen.empty());
  // Each version's result, on the named-tensor path.
  std::vector<ss::Tensor> expected;
  for (const auto& v : versions) {
    std::map<std::string, ss::Tensor> by_name;
    for (const auto& [path, t] : v) by_name["m." + path] = t;
    expected.push_back(f.mod.call("act", {x}, by_name).tensor());
  }
  CHECK_FALSE(same_bits(expected.front(), expected.back()));  // training changed what it gives
  for (const auto& got : seen) {
    bool whole = false;
    for (const auto& e : expected) whole |= same_bits(got, e);
    CHECK(whole);
  }
  CHECK(policy.version() == kSteps + 1);
}

TEST_CASE("hot reload keeps the values whose layouts fit and reports the rest") {
  Fixture f;
  const ss::Value policy = f.mod.make("Policy", {.seed = 0});
  const ss::Value opt = f.mod.make_optimizer("Adam", policy);
  std::string changed = kPolicy;
  changed.replace(changed.find("dim H = 8"), 9, "dim H = 6");  // Policy's layout changes
  const ss::Engine engine;
  auto report = f.mod.reload(engine, kPolicy, "policy.ss");  // the same program
  REQUIRE(report);
  CHECK(report.kept_values.size() == 2);
  CHECK(report.dropped_values.empty());
  const auto obs = ramp(4, 0.1f);
  CHECK(f.mod.call("act", {policy, ss::Tensor::view(obs.data(), {1, 4})}));
  report = f.mod.reload(engine, changed, "policy.ss");
  REQUIRE(report);
  CHECK(report.kept_values.empty());
  REQUIRE(report.dropped_values.size() == 2);
  CHECK(report.dropped_values[0].second == "its `w1` is f32 [4 8], Policy's is f32 [4 6]");
  const auto stale = f.mod.call("act", {policy, ss::Tensor::view(obs.data(), {1, 4})});
  CHECK(stale.diagnostics.at(0).code == "E1603");
}
