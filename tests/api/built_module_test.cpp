// `shapescript build FILE -o model.so`: the program and its compiled code
// in a shared object the system's cc links; loading it back compiles
// nothing (every kernel and controller function comes from the object),
// and it gives the source's results. A file that isn't such an object is
// E1809.
#include <doctest/doctest.h>

#include "shapescript/shapescript.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/skip.hpp"

TEST_CASE("a built module loads back compiling nothing and gives the source's results") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build: `shapescript build` needs it");
    return;
  }
  ss::test::TempDir dir;
  const ss::Engine engine({.jit_library = ss::test::kJitPath});
  const std::string digits = std::string(ss::test::kSourceDir) + "/examples/digits/digits.ss";
  // A name the shell would misread unquoted: the build quotes it for cc.
  const auto built = engine.build_shared(digits, dir.file("digit's model.so"));
  REQUIRE_MESSAGE(built.empty(), built[0].render());

  ss::LoadOptions options;
  options.sinks["metrics"] = [](const ss::SinkRecord&) {};
  const ss::Module from_object = engine.load_built(dir.file("digit's model.so"), options);
  REQUIRE_MESSAGE(from_object, from_object.diagnostics()[0].render());
  const ss::Module from_source = engine.load_file(digits, options);
  REQUIRE(from_source);

  std::vector<float> w1(64 * 128), b1(128), w2(128 * 10), b2(10), x(3 * 64);
  for (std::size_t i = 0; i < w1.size(); ++i) w1[i] = 0.01f * static_cast<float>(i % 17) - 0.08f;
  for (std::size_t i = 0; i < w2.size(); ++i) w2[i] = 0.02f * static_cast<float>(i % 11) - 0.1f;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 5);
  const std::map<std::string, ss::Tensor> params = {
      {"m.w1", ss::Tensor::view(w1.data(), {64, 128})},
      {"m.b1", ss::Tensor::view(b1.data(), {128})},
      {"m.w2", ss::Tensor::view(w2.data(), {128, 10})},
      {"m.b2", ss::Tensor::view(b2.data(), {10})}};
  const auto input = ss::Tensor::view(x.data(), {3, 64});
  const auto a = from_object.call("logits", {input}, params);
  const auto b = from_source.call("logits", {input}, params);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a.tensor().to_floats() == b.tensor().to_floats());
  // In this process the build linked them already; a fresh one finds them
  // in the object (below).
  CHECK(from_object.executor_stats().kernels_compiled == 0);

  // A fresh process with an empty code cache runs the object's `main`:
  // it trains, and compiles nothing.
  const std::string beside = std::string(ss::test::kSourceDir) + "/examples/digits/built-test-" +
                             std::to_string(::getpid()) + ".so";
  REQUIRE(ss::test::run_process({"cp", dir.file("digit's model.so"), beside}, {}).exit_code == 0);
  const auto ran = ss::test::run_process({ss::test::kCliPath, "run", beside, "--sink",
                                          "metrics=" + dir.file("metrics.csv"), "--stats"},
                                         {.env = {{"XDG_CACHE_HOME", dir.file("empty-cache")},
                                                  {"SHAPESCRIPT_JIT", ss::test::kJitPath}},
                                          .merge_stderr = true});
  std::remove(beside.c_str());
  REQUIRE_MESSAGE(ran.exit_code == 0, ran.out);
  CHECK(ran.out.find("epoch 29") != std::string::npos);
  CHECK(ran.out.find("JIT module loaded; 0 fused kernels compiled") != std::string::npos);
  CHECK(ran.out.find("controller  compiled") != std::string::npos);
}

TEST_CASE("a file that isn't a built module is E1809 at load") {
  ss::test::TempDir dir;
  const ss::Engine engine;
  const auto text = engine.load_built(dir.write("fake.so", "not an object"));
  REQUIRE_FALSE(text);
  CHECK(text.diagnostics().at(0).code == "E1809");
  const auto other = engine.load_built("libm.so.6");  // a real object, but not ours
  REQUIRE_FALSE(other);
  CHECK(other.diagnostics().at(0).code == "E1809");
}
