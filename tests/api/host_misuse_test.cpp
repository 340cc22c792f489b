// What a careless host does, answered with a coded error and never a crash:
// empty (default or moved-from) objects, memory the machine can't give, an
// empty batch where a mean needs an example, and a line of garbage that
// must not make megabytes of diagnostics.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "shapescript/shapescript.hpp"
#include "support/paths.hpp"

namespace {

std::string digits_path() {
  return std::string(ss::test::kSourceDir) + "/examples/digits/digits.ss";
}

ss::LoadOptions digits_options() {
  return {.sinks = {{"metrics", [](const ss::SinkRecord&) {}}}};
}

std::string first_code(const std::vector<ss::Diagnostic>& ds) {
  return ds.empty() ? std::string("(none)") : ds[0].code;
}

// Every member of an empty Module answers as an empty object.
void check_empty_module(const ss::Module& m) {
  CHECK_FALSE(m);
  CHECK(m.diagnostics().empty());
  CHECK(m.prepared() == 0);
  const ss::Tensor x = ss::Tensor::of(std::vector<float>{1, 2}, {1, 2});
  CHECK(first_code(m.call("f", {x}).diagnostics) == "E1612");
  std::vector<float> out(2);
  CHECK(first_code(m.call_into("f", {x}, {ss::Tensor::view(out.data(), {1, 2})}).diagnostics) ==
        "E1612");
  std::vector<ss::Diagnostic> errors;
  CHECK_FALSE(m.make("Mlp", {}, &errors));
  CHECK(first_code(errors) == "E1612");
  errors.clear();
  CHECK_FALSE(m.batch("Digit", {{"pixels", x}}, &errors));
  CHECK(first_code(errors) == "E1612");
  errors.clear();
  CHECK_FALSE(m.load("Mlp", "nowhere.safetensors", {}, &errors));
  CHECK(first_code(errors) == "E1612");
  CHECK(m.executor_stats().executor == "reference");
}

}  // namespace

TEST_CASE("a default or moved-from Module, Engine or MpiWorld answers as an empty object") {
  const ss::Module fresh;
  check_empty_module(fresh);

  const ss::Engine engine;
  ss::Module loaded = engine.load_file(digits_path(), digits_options());
  REQUIRE(loaded);
  ss::Module taken = std::move(loaded);
  check_empty_module(loaded);  // NOLINT: the moved-from state is what is tested
  CHECK(taken);

  // A module moved onto another keeps working; a reload on an empty one loads.
  ss::Module target;
  target = std::move(taken);
  CHECK(target);
  ss::Module empty;
  CHECK(empty.reload(engine, "dim D = 2\nfn f(x: [D]) -> [D] = x * 2.0\n", "f.ss"));
  CHECK(empty);

  ss::Engine first;
  ss::Engine second = std::move(first);
  CHECK(second.ok());
  CHECK_FALSE(first.ok());  // NOLINT
  CHECK(first_code(first.diagnostics()) == "E1612");
  CHECK(first_code(first.load_file(digits_path()).diagnostics()) == "E1612");
  CHECK(first_code(first.load_source("dim D = 2\n", "d.ss").diagnostics()) == "E1612");
  CHECK(first_code(first.check_file(digits_path())) == "E1612");
  CHECK(first_code(first.run_file(digits_path(), "main", nullptr)) == "E1612");
  std::vector<ss::Diagnostic> why;
  CHECK(first.ir_listing(digits_path(), &why).empty());
  CHECK(first_code(why) == "E1612");
  CHECK(first.device().name() == "cpu");

  ss::Value v;
  CHECK(v.empty());
  ss::Value w = std::move(v);
  CHECK(first_code(target.call("accuracy", {w, v}).diagnostics) == "E1603");
}

TEST_CASE("a batch of 2^40 claimed over a small buffer is out of memory (E1611), not a bug") {
  const ss::Engine engine;
  std::vector<float> small(64, 0.5f);
  const ss::Tensor huge = ss::Tensor::view(small.data(), {std::int64_t{1} << 40, 64});
  for (const std::int64_t limit : {std::int64_t{0}, std::int64_t{1} << 30}) {
    CAPTURE(limit);
    auto options = digits_options();
    options.memory_limit = limit;
    const ss::Module mod = engine.load_file(digits_path(), options);
    REQUIRE(mod);
    const ss::Value m = mod.make("Mlp");
    const auto r = mod.call("logits", {m, huge});
    REQUIRE_FALSE(r);
    // Past the host's limit, E1610; without one, the machine's memory.
    CHECK(r.diagnostics[0].code == (limit > 0 ? "E1610" : "E1611"));
    CHECK_MESSAGE(r.diagnostics[0].message.find("bytes") != std::string::npos,
                  r.diagnostics[0].message);  // how much was asked for
    // The module goes on: a real batch runs.
    CHECK(mod.call("logits", {m, ss::Tensor::view(small.data(), {1, 64})}));
  }
}

TEST_CASE("a call on an empty batch where a mean needs an example is E1613, and changes nothing") {
  const ss::Engine engine;
  const ss::Module mod = engine.load_file(digits_path(), digits_options());
  REQUIRE(mod);
  const ss::Value m = mod.make("Mlp");
  const ss::Value opt = mod.make_optimizer("AdamW", m);
  const std::vector<float> none;
  const std::vector<std::int32_t> no_labels;
  const ss::Value empty = mod.batch("Digit", {{"pixels", ss::Tensor::of(none, {0, 64})},
                                              {"label", ss::Tensor::of(no_labels, {0})}});
  REQUIRE(empty);
  const auto version = m.version();
  const auto step = mod.call("train_step", {ss::mut(m), ss::mut(opt), empty});
  REQUIRE_FALSE(step);
  CHECK(step.diagnostics[0].code == "E1613");
  CHECK(step.diagnostics[0].message.find("`b`") != std::string::npos);
  CHECK(m.version() == version);  // a failed `mut` call publishes nothing
  CHECK(opt.version() == 1);
  CHECK(first_code(mod.call("accuracy", {m, empty}).diagnostics) == "E1613");
  // The named-tensor path too; a function without a mean takes the empty batch.
  const ss::Tensor x = ss::Tensor::of(none, {0, 64});
  std::map<std::string, ss::Tensor> named;
  for (const auto& [path, t] : m.tensors()) named["m." + path] = t;
  named["batch.pixels"] = x;
  named["batch.label"] = ss::Tensor::of(no_labels, {0});
  CHECK(first_code(mod.call("loss", {}, named).diagnostics) == "E1613");
  const auto logits = mod.call("logits", {m, x});
  REQUIRE(logits);
  CHECK(logits.tensor().shape() == std::vector<std::int64_t>{0, 10});
}

TEST_CASE("a 16 MB line of garbage gives kilobytes of diagnostics, in text and JSON") {
  std::string garbage;
  const std::string chars = "ab+-*/()[]{}:=,.019 @$?!`";
  std::uint32_t seed = 1;
  garbage.reserve(16'000'000);
  for (int i = 0; i < 16'000'000; ++i) {
    seed = seed * 1664525u + 1013904223u;
    garbage += chars[(seed >> 16) % chars.size()];
  }
  garbage += "\n";
  // A token as long as the line: quoted in messages, cut there too.
  const std::string number = "x = " + std::string(4'000'000, '1') + "b\n";
  const ss::Engine engine;
  for (const std::string& text : {garbage, number}) {
    const auto ds = engine.check_source(text, "garbage.ss");
    REQUIRE_FALSE(ds.empty());
    std::size_t rendered = 0, json = 0;
    for (const auto& d : ds) {
      rendered += d.render().size();
      json += ss::to_json(d).size();
      for (const auto& l : d.labels) CHECK(l.line_text.size() < 400);
    }
    CAPTURE(ds.size());
    CHECK(rendered < 200'000);
    CHECK(json < 200'000);
  }
  // The window keeps the underline under its span, far along a long line.
  const auto ds =
      engine.check_source("fn main():\n    y = 1 +" + std::string(1000, ' ') + "q\n", "wide.ss");
  REQUIRE_FALSE(ds.empty());
  CHECK(ds[0].code == "E0301");
  const std::string shown = ds[0].render();
  CAPTURE(shown);
  const auto name = shown.find("q\n");
  const auto caret = shown.find('^');
  REQUIRE(name != std::string::npos);
  REQUIRE(caret != std::string::npos);
  CHECK(caret - (shown.rfind('\n', caret) + 1) == name - (shown.rfind('\n', name) + 1));
  CHECK(shown.find("2 | ...") != std::string::npos);
}
