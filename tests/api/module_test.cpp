// The embedding API as a host uses it: load, call at several batch sizes
// (prepared once), read results; every host mistake a coded diagnostic.
#include <doctest/doctest.h>

#include <cmath>
#include <thread>

#include "shapescript/shapescript.hpp"
#include "support/digits_fixture.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

namespace digits = ss::test::digits;

std::map<std::string, ss::Tensor> parameters() {
  std::map<std::string, ss::Tensor> out;
  for (const auto& [name, a] : digits::parameters()) out[name] = ss::Tensor::of(a.values, a.shape);
  return out;
}

std::string digits_path() {
  return std::string(ss::test::kSourceDir) + "/examples/digits/digits.ss";
}

// The digits program declares a sink, `metrics`; a host binds every sink.
ss::LoadOptions digits_options() {
  return {.sinks = {{"metrics", [](const ss::SinkRecord&) {}}}};
}

}  // namespace

TEST_CASE(
    "a host calls the design's logits at batch sizes 1, 64 and 1000, prepared once, matching "
    "numpy") {
  const ss::Engine engine;
  const ss::Module mod = engine.load_file(digits_path(), digits_options());
  REQUIRE(mod);
  CHECK(mod.prepared() == 4);  // logits, loss, train_step, accuracy: lowered at load
  const auto params = parameters();
  for (const std::int64_t b : {1, 64, 1000}) {
    CAPTURE(b);
    const auto x = digits::pixels(b);  // the host's memory, viewed without a copy
    const auto result = mod.call("logits", {ss::Tensor::view(x.values.data(), x.shape)}, params);
    REQUIRE_MESSAGE(result, (result.diagnostics.empty() ? "" : result.diagnostics[0].render()));
    REQUIRE(result.outputs.size() == 1);
    CHECK(result.tensor().shape() == std::vector<std::int64_t>{b, digits::C});
    const auto got = result.tensor().to_floats();
    const auto& want = digits::golden("logits " + std::to_string(b));
    REQUIRE(got.size() == want.size());
    int wrong = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!ss::test::agrees(got[i], want[i], 1, ss::test::tolerance("golden")) && ++wrong <= 3)
        FAIL_CHECK("element " << i << ": " << got[i] << ", numpy " << want[i]);
  }
  CHECK(mod.prepared() == 4);  // the one preparation served all three sizes
}

TEST_CASE("what lowering finds fails the load and `check`, before anything runs") {
  const ss::Engine engine;
  // A gradient through `concat` along a generic axis: not supported yet.
  const std::string program =
      "dim D = 3\nmodel Net:\n    param w: [D] = zeros\n"
      "fn joined(m: Net, x: [b D], y: [c D]) -> [] = sum(concat(x * m.w, y, over=0))\n"
      "fn gradient(m: Net, x: [b D], y: [c D]) -> Net = grad(joined, m, x, y)\n"
      "fn fine(x: [D]) -> [D] = x * 2.0\n";
  const auto codes = [](const std::vector<ss::Diagnostic>& ds) {
    std::string out;
    for (const auto& d : ds) out += d.code + " ";
    return out;
  };
  const ss::Module bad = engine.load_source(program, "bad.ss");
  CHECK_FALSE(bad);
  CHECK(codes(bad.diagnostics()) == "E1205 ");
  CHECK(codes(engine.check_source(program, "bad.ss")) == "E1205 ");
  // Without the gradient, every device function is prepared at load.
  const std::string fine =
      program.substr(0, program.find("fn gradient")) + "fn fine(x: [D]) -> [D] = x * 2.0\n";
  const ss::Module good = engine.load_source(fine, "good.ss");
  REQUIRE(good);
  CHECK(good.prepared() == 2);  // joined and fine, neither called yet
  CHECK(engine.check_source(fine, "good.ss").empty());
  // A coded mistake lowering finds in the controller keeps its help at load.
  const auto independent = engine.check_source(
      "dim D = 4\nmodel M:\n    param w: [D] = zeros\nfn loss(m: M, x: [D]) -> [] = sum(x * x)\n"
      "fn main():\n    m = M(seed=0)\n    l, g = value_and_grad(loss, m, zeros([D]) + 1.0)\n",
      "independent.ss");
  REQUIRE(independent.size() == 1);
  CHECK(independent[0].code == "E1204");
  CHECK(independent[0].help.find("a loss that uses its parameters") != std::string::npos);
}

TEST_CASE("a host passes records by field and reads a scalar loss") {
  const ss::Module mod = ss::Engine().load_file(digits_path(), digits_options());
  auto inputs = parameters();
  const auto x = digits::pixels(64);
  inputs["batch.pixels"] = ss::Tensor::of(x.values, x.shape);
  inputs["batch.label"] = ss::Tensor::of(digits::labels(64), {64});
  const auto result = mod.call("loss", {}, inputs);
  REQUIRE(result);
  CHECK(result.tensor().shape().empty());
  CHECK(std::fabs(result.tensor().to_floats()[0] - digits::golden("loss 64")[0]) < 1e-5);
}

TEST_CASE("host mistakes are coded diagnostics: wrong shape, wrong type, missing, unknown") {
  const ss::Module mod = ss::Engine().load_file(digits_path(), digits_options());
  const auto params = parameters();
  const std::vector<float> wrong(5 * 63);
  const auto shape = mod.call("logits", {ss::Tensor::view(wrong.data(), {5, 63})}, params);
  REQUIRE_FALSE(shape);
  CHECK(shape.diagnostics[0].code == "E1603");
  CHECK(shape.diagnostics[0].message == "`x` is [b D]: its axis D has size 64, given 63");

  const std::vector<std::int32_t> ints(5 * 64);
  const auto type = mod.call("logits", {ss::Tensor::view(ints.data(), {5, 64})}, params);
  CHECK(type.diagnostics.at(0).code == "E1603");
  CHECK(type.diagnostics.at(0).message == "`x` holds f32, given i32");

  const std::vector<float> x(64);
  auto partial = params;
  partial.erase("m.w2");
  const auto missing = mod.call("logits", {ss::Tensor::view(x.data(), {1, 64})}, partial);
  CHECK(missing.diagnostics.at(0).code == "E1605");
  CHECK(missing.diagnostics.at(0).message == "`logits` needs `m.w2`, a [H C]");

  CHECK(mod.call("nothing", {}).diagnostics.at(0).code == "E1604");
  const auto misspelt = mod.call("logit", {}).diagnostics.at(0);
  CHECK(misspelt.code == "E1604");
  CHECK(misspelt.help.rfind("did you mean `logits`? its functions are `logits`", 0) == 0);
  // A controller function is called too, with its parameters in order.
  const auto too_many = mod.call("main", {1}).diagnostics.at(0);
  CHECK(too_many.code == "E1603");
  CHECK(too_many.message == "`main` takes 0 parameters, given 1");
  auto extra = params;
  extra["m.w3"] = ss::Tensor::scalar(1.0f);
  CHECK(mod.call("logits", {ss::Tensor::view(x.data(), {1, 64})}, extra).diagnostics.at(0).code ==
        "E1603");
}

TEST_CASE(
    "a program with errors loads as a false module with its diagnostics, and calls report them") {
  const ss::Module mod =
      ss::Engine().load_source("dim D = 4\nfn f(x: [D]) -> [D] = y\n", "host.ss");
  CHECK_FALSE(mod);
  REQUIRE(mod.diagnostics().size() == 1);
  CHECK(mod.diagnostics()[0].code == "E0301");
  CHECK(mod.call("f", {ss::Tensor::scalar(1.0f)}).diagnostics.at(0).code == "E0301");
}

TEST_CASE(
    "a host's strided view is read in place: a transposed batch gives the packed one's logits") {
  const ss::Module mod = ss::Engine().load_file(digits_path(), digits_options());
  const auto params = parameters();
  const auto x = digits::pixels(7);  // [7 64], row-major
  // The same batch stored transposed, [64 7], and passed as a [7 64] view.
  std::vector<float> transposed(x.values.size());
  for (std::size_t i = 0; i < 7; ++i)
    for (std::size_t j = 0; j < 64; ++j) transposed[j * 7 + i] = x.values[i * 64 + j];
  const auto packed = mod.call("logits", {ss::Tensor::view(x.values.data(), {7, 64})}, params);
  const auto strided =
      mod.call("logits", {ss::Tensor::view(transposed.data(), {7, 64}, {1, 7})}, params);
  REQUIRE(packed);
  REQUIRE(strided);
  CHECK(strided.tensor().to_floats() == packed.tensor().to_floats());
  CHECK(strided.tensor().strides() == std::vector<std::int64_t>{10, 1});  // results are packed

  const auto bad = mod.call("logits", {ss::Tensor::view(x.values.data(), {7, 64}, {64})}, params);
  REQUIRE_FALSE(bad);
  CHECK(bad.diagnostics[0].code == "E1603");
  CHECK(bad.diagnostics[0].message == "`argument 1` has 1 strides for 2 axes");
  const auto empty = mod.call("logits", {}, [&] {
    auto p = params;
    p["x"] = ss::Tensor();
    return p;
  }());
  CHECK(empty.diagnostics.at(0).code == "E1603");
}

TEST_CASE("a host trains through Module::call: train_step returns the new model and optimiser") {
  const ss::Module mod = ss::Engine().load_file(digits_path(), digits_options());
  auto inputs = parameters();
  const auto x = digits::pixels(64);
  inputs["batch.pixels"] = ss::Tensor::of(x.values, x.shape);
  inputs["batch.label"] = ss::Tensor::of(digits::labels(64), {64});
  for (const auto& [name, value] : std::map<std::string, float>{{"opt.lr", 1e-2f},
                                                                {"opt.beta1", 0.9f},
                                                                {"opt.beta2", 0.999f},
                                                                {"opt.eps", 1e-8f},
                                                                {"opt.weight_decay", 0.0f},
                                                                {"opt.step", 0.0f}})
    inputs[name] = ss::Tensor::scalar(value);
  for (const auto& [name, a] : digits::parameters())
    for (const char* state : {"opt.exp_avg.", "opt.exp_avg_sq."})
      inputs[state + name.substr(2)] = ss::Tensor::of(std::vector<float>(a.values.size()), a.shape);
  float first = 0, last = 0;
  for (int step = 0; step < 5; ++step) {
    const auto r = mod.call("train_step", {}, inputs);
    REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? "" : r.diagnostics[0].render()));
    REQUIRE(r.outputs.size() == 1 + r.updated.size());
    CHECK(r.updated.front() == "m.w1");
    (step == 0 ? first : last) = r.tensor().to_floats()[0];
    for (std::size_t i = 0; i < r.updated.size(); ++i) inputs[r.updated[i]] = r.outputs[1 + i];
  }
  CHECK(inputs["opt.step"].to_floats()[0] == 5.0f);
  CHECK(last < first);  // the same batch, five steps: its loss falls
}

TEST_CASE("a sink the host leaves unbound drops its records, or is E1705 with strict sinks") {
  CHECK(ss::Engine().load_file(digits_path()));
  const ss::Module mod = ss::Engine().load_file(digits_path(), {.strict_sinks = true});
  REQUIRE_FALSE(mod);
  REQUIRE(mod.diagnostics().size() == 1);
  CHECK(mod.diagnostics()[0].code == "E1705");
  CHECK(mod.diagnostics()[0].message == "the sink `metrics` has no destination");
  CHECK(mod.diagnostics()[0].location.line == 32);
  // A null callback doesn't bind it either.
  CHECK_FALSE(ss::Engine().load_file(digits_path(),
                                     {.sinks = {{"metrics", nullptr}}, .strict_sinks = true}));

  // Unbound, its records reach `unbound_sink`, with the sink's name.
  ss::test::TempDir dir;
  const auto file = dir.write("s.ss",
                              "sink metrics\nsink other\nfn main():\n    for i in range(3):\n"
                              "        write(metrics, step=i)\n    write(other, x=1.5)\n");
  std::vector<std::string> seen;
  ss::LoadOptions options;
  options.sinks["other"] = [&](const ss::SinkRecord& r) { seen.push_back("bound " + r[0].first); };
  options.unbound_sink = [&](const std::string& name, const ss::SinkRecord& r) {
    seen.push_back(name + " " + std::to_string(static_cast<int>(r.at(0).second)));
  };
  CHECK(ss::Engine().run_file(file, "main", nullptr, {}, options).empty());
  CHECK(seen == std::vector<std::string>{"metrics 0", "metrics 1", "metrics 2", "bound x"});
  options.unbound_sink = nullptr;  // dropped
  CHECK(ss::Engine().run_file(file, "main", nullptr, {}, options).empty());
}

TEST_CASE("tensors: views borrow, copies own, values convert") {
  std::vector<float> host = {1, 2, 3, 4, 5, 6};
  const auto view = ss::Tensor::view(host.data(), {2, 3});
  CHECK(view.data() == host.data());
  CHECK(view.size() == 6);
  const auto copy = ss::Tensor::of(host, {2, 3});
  CHECK(copy.data() != host.data());
  host[0] = 100;
  CHECK(view.to_floats()[0] == 100);
  CHECK(copy.to_floats()[0] == 1);
  CHECK(ss::Tensor::of(std::vector<std::int32_t>{7, -2}, {2}).to_floats() ==
        std::vector<float>{7, -2});
  const auto column = ss::Tensor::view(host.data() + 2, {2}, {3});
  CHECK(column.to_floats() == std::vector<float>{3, 6});
  CHECK(ss::Tensor::view(host.data(), {2}, {}).to_floats().empty());
  const bool flags[] = {true, false};
  CHECK(ss::Tensor::copy(ss::DType::boolean, flags, {2}).to_floats() == std::vector<float>{1, 0});
}

TEST_CASE("one module called from several threads at once gives each call its own right answer") {
  const ss::Module mod = ss::Engine().load_file(digits_path(), digits_options());
  const auto params = parameters();
  const std::vector<std::int64_t> batches = {1, 7, 64, 200};
  std::vector<std::vector<float>> expected;
  for (const auto b : batches) {
    const auto x = digits::pixels(b);
    expected.push_back(
        mod.call("logits", {ss::Tensor::of(x.values, x.shape)}, params).tensor().to_floats());
  }
  std::vector<int> wrong(batches.size() * 4, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < batches.size() * 4; ++t) {
    threads.emplace_back([&, t] {
      const std::size_t k = t % batches.size();
      const auto x = digits::pixels(batches[k]);
      for (int round = 0; round < 3; ++round) {
        const auto r = mod.call("logits", {ss::Tensor::view(x.values.data(), x.shape)}, params);
        if (!r || r.tensor().to_floats() != expected[k]) ++wrong[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const int w : wrong) CHECK(w == 0);
  CHECK(mod.prepared() == 4);
}

TEST_CASE("one engine loads, checks and runs from several threads at once") {
  const ss::Engine engine;
  const auto params = parameters();
  const auto x = digits::pixels(5);
  const auto want = engine.load_file(digits_path(), digits_options())
                        .call("logits", {ss::Tensor::of(x.values, x.shape)}, params)
                        .tensor()
                        .to_floats();
  std::vector<int> wrong(6, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < wrong.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 2; ++round) {
        // Each thread its own module of the same program, and a check of a
        // bad one, on the shared engine.
        const ss::Module mod = engine.load_file(digits_path(), digits_options());
        const auto r = mod.call("logits", {ss::Tensor::view(x.values.data(), x.shape)}, params);
        if (!r || r.tensor().to_floats() != want) ++wrong[t];
        const auto bad = engine.check_source("fn f(x: [3]) -> [4] = x\n", "bad.ss");
        if (bad.empty() || bad[0].code != "E0605") ++wrong[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const int w : wrong) CHECK(w == 0);
}

TEST_CASE("a slice counted from the end runs on both executors") {
  // -3:-1 of a static axis of 4 is 1:3 (it was an internal error when lowered).
  const char* program =
      "dim A = 4\n\nfn h(x: [n 4 2]) -> [n 2 2]:\n    t: [n A 2] = x\n    return t[A=-3:-1]\n";
  for (const auto executor : {ss::Executor::fast, ss::Executor::reference}) {
    ss::Engine engine({.executor = executor});
    const ss::Module m = engine.load_source(program, "slice.ss");
    REQUIRE(m);
    const auto x = ss::Tensor::of(std::vector<float>{0, 1, 10, 11, 20, 21, 30, 31}, {1, 4, 2});
    const auto r = m.call("h", std::vector<ss::Tensor>{x});
    REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? "" : r.diagnostics[0].message));
    CHECK(r.tensor().to_floats() == std::vector<float>{10, 11, 20, 21});
  }
}
