// `shapescript build --standalone`: the digits model's device functions as
// one C++ source that plain g++ compiles with nothing else, giving the
// library's outputs (the JIT's, where it is present) within float32
// rounding for every function: forward, loss, accuracy and the training
// step with its updates. A non-C++ output is E1807, an operation the tiny
// runtime lacks E1808, several devices E1805 first.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "shapescript/shapescript.hpp"
#include "support/checked_program.hpp"
#include "support/lowered_graphs.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

std::string digits() {
  return std::string(ss::test::kSourceDir) + "/examples/digits/digits.ss";
}

// Builds `program` standalone, compiles it with the harness, and checks
// every device function against Module::call on made-up inputs (an
// optimiser's as training has them); returns how many it checked.
int check_standalone(const std::string& program_file) {
  ss::test::TempDir dir;
  const ss::Engine engine;
  const std::string path = std::string(ss::test::kSourceDir) + "/" + program_file;
  const auto built = engine.build_standalone(path, dir.file("model.cpp"));
  REQUIRE_MESSAGE(built.empty(), built[0].render());
  const auto compiled =
      ss::test::run_process({"g++", "-std=c++17", "-O1", "-I" + dir.path(),
                             std::string(ss::test::kSourceDir) + "/tests/standalone/harness.cpp",
                             "-o", dir.file("harness")},
                            {.merge_stderr = true});
  REQUIRE_MESSAGE(compiled.exit_code == 0, compiled.out);

  ss::LoadOptions options;
  options.sinks["metrics"] = [](const ss::SinkRecord&) {};
  const ss::Module m = engine.load_file(path, options);
  REQUIRE(m);
  const auto program = ss::test::check_source_file(program_file);
  int functions = 0;
  for (const auto& lowered : ss::test::lowered_graphs(*program)) {
    // Named, not a structured binding: clang 14's INFO can't capture one.
    const std::string& function = lowered.function;
    const auto& g = lowered.graph;
    INFO(program_file << ": " << function);
    auto inputs = ss::test::made_up_inputs(g, program->typed.dims, 6, 0.9);
    for (const auto& [name, value] : std::map<std::string, double>{{"opt.lr", 1e-2},
                                                                   {"opt.beta1", 0.9},
                                                                   {"opt.beta2", 0.999},
                                                                   {"opt.eps", 1e-8},
                                                                   {"opt.weight_decay", 0.01},
                                                                   {"opt.step", 3}})
      if (inputs.count(name))
        inputs[name] = ss::runtime::Tensor::scalar(ss::runtime::DType::f32, value);
    for (auto& [name, t] : inputs)
      if (name.rfind("opt.exp_avg_sq.", 0) == 0) {
        auto positive = t.clone();
        for (std::int64_t k = 0; k < positive.size(); ++k)
          positive.set(k, std::fabs(positive.get(k)));
        t = positive;
      }
    std::ofstream file(dir.file("inputs.txt"));
    std::map<std::string, ss::Tensor> named;
    for (const auto& [name, t] : inputs) {
      const auto c = t.compact();
      named[name] = ss::Tensor::copy(static_cast<ss::DType>(c.dtype()), c.raw(), c.shape());
      file << name << " " << static_cast<int>(c.dtype()) << " " << c.rank();
      for (const auto d : c.shape()) file << " " << d;
      for (const double v : c.values()) {
        char text[64];
        std::snprintf(text, sizeof text, " %.17g", v);
        file << text;
      }
      file << "\n";
    }
    file.close();
    const auto want = m.call(function, {}, named);
    if (!want) {  // made-up values the function refuses (an Index out of range)
      MESSAGE(function << ": " << want.diagnostics.at(0).message);
      continue;
    }
    const auto ran =
        ss::test::run_process({dir.file("harness"), dir.file("inputs.txt"), function}, {});
    REQUIRE_MESSAGE(ran.exit_code == 0, ran.out);
    std::istringstream lines(ran.out);
    for (const auto& t : want.outputs) {
      const auto expected = t.to_floats();
      std::int64_t size = 0;
      lines >> size;
      REQUIRE(size == static_cast<std::int64_t>(expected.size()));
      const auto& tol = ss::test::tolerance("standalone");
      const double scale =
          ss::test::tensor_scale(std::vector<double>(expected.begin(), expected.end()));
      for (const float e : expected) {
        double got = 0;
        lines >> got;
        CHECK(ss::test::agrees(got, e, scale, tol));
      }
    }
    ++functions;
  }
  return functions;
}

}  // namespace

TEST_CASE("a standalone build of digits compiles with plain g++ and gives the library's results") {
  CHECK(check_standalone("examples/digits/digits.ss") == 4);  // logits, loss, accuracy, train_step
}

TEST_CASE("a standalone build of tinylm (attention, norms, gathers, causal masks) agrees too") {
  CHECK(check_standalone("examples/tinylm/tinylm.ss") >= 4);
}

TEST_CASE("a standalone build of the CNN (conv, max_pool, their gradients) agrees too") {
  CHECK(check_standalone("examples/cnn/cnn.ss") == 4);  // logits, loss, accuracy, train_step
}

TEST_CASE("a standalone build of a stack's scan (a loop, forward and backward) agrees too") {
  // linear, logits, loss, train_step (its backward loop) and accuracy
  CHECK(check_standalone("tests/programs/training/stacked_digits.ss") == 5);
}

TEST_CASE("a standalone build refuses what it can't write: E1807, E1808, E1805 first") {
  ss::test::TempDir dir;
  const ss::Engine engine;
  auto refused = engine.build_standalone(digits(), dir.file("model.py"));
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].code == "E1807");

  const auto draws =
      dir.write("draws.ss", "fn f(x: [4]) -> [4] = x + normal([4], std=1.0, seed=1)\n");
  refused = engine.build_standalone(draws, dir.file("model.cpp"));
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].code == "E1808");
  CHECK(refused[0].message == "`f` uses random, which a standalone build doesn't take yet");
  CHECK(refused[0].location.line == 1);

  const auto several = dir.write("several.ss", "devices cpu[0 1]\n\nfn f(x: [b]) -> [b] = x * 2\n");
  refused = engine.build_standalone(several, dir.file("model.py"));  // before the name is looked at
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].code == "E1805");
}

TEST_CASE("a standalone build of functions named as C++ keywords and reserved names compiles") {
  // Every C++20 keyword and alternative token the language takes as a
  // name, and names the generated file or the standard headers use
  // themselves; each function multiplies by its own number, so a name
  // that landed on another function's body shows.
  const std::vector<std::string> cpp_keywords = {"alignas",
                                                 "alignof",
                                                 "asm",
                                                 "auto",
                                                 "bool",
                                                 "case",
                                                 "catch",
                                                 "char",
                                                 "char8_t",
                                                 "char16_t",
                                                 "char32_t",
                                                 "class",
                                                 "co_await",
                                                 "co_return",
                                                 "co_yield",
                                                 "concept",
                                                 "const",
                                                 "consteval",
                                                 "constexpr",
                                                 "constinit",
                                                 "const_cast",
                                                 "continue",
                                                 "decltype",
                                                 "default",
                                                 "delete",
                                                 "do",
                                                 "double",
                                                 "dynamic_cast",
                                                 "enum",
                                                 "explicit",
                                                 "export",
                                                 "extern",
                                                 "float",
                                                 "friend",
                                                 "goto",
                                                 "inline",
                                                 "int",
                                                 "long",
                                                 "mutable",
                                                 "namespace",
                                                 "new",
                                                 "noexcept",
                                                 "nullptr",
                                                 "operator",
                                                 "private",
                                                 "protected",
                                                 "public",
                                                 "register",
                                                 "reinterpret_cast",
                                                 "requires",
                                                 "short",
                                                 "signed",
                                                 "sizeof",
                                                 "static",
                                                 "static_assert",
                                                 "static_cast",
                                                 "struct",
                                                 "switch",
                                                 "template",
                                                 "this",
                                                 "thread_local",
                                                 "throw",
                                                 "try",
                                                 "typedef",
                                                 "typeid",
                                                 "typename",
                                                 "union",
                                                 "unsigned",
                                                 "using",
                                                 "virtual",
                                                 "void",
                                                 "volatile",
                                                 "wchar_t",
                                                 "while",
                                                 "and_eq",
                                                 "bitand",
                                                 "bitor",
                                                 "compl",
                                                 "not_eq",
                                                 "or_eq",
                                                 "xor",
                                                 "xor_eq",
                                                 "final",
                                                 "override",
                                                 "import",
                                                 "module"};
  // The language's own keywords (`and`, `break`, `else`, `false`, `for`,
  // `if`, `not`, `or`, `return`, `true`) can't name a function at all.
  const std::vector<std::string> others = {
      "ssa", "model",  "functions", "assert",    "errno", "NULL", "EOF",       "stdin",
      "_x",  "_Upper", "a__b",      "ss_double", "ss_x",  "f",    "f_updated", "double_updated",
      "v0",  "s",      "in_"};
  std::vector<std::string> names = cpp_keywords;
  names.insert(names.end(), others.begin(), others.end());
  std::string program;
  for (std::size_t k = 0; k < names.size(); ++k)
    program += "fn " + names[k] + "(x: [4]) -> [4] = x * " + std::to_string(k + 1) + ".0\n";

  ss::test::TempDir dir;
  const ss::Engine engine;
  const auto source = dir.write("names.ss", program);
  const auto built = engine.build_standalone(source, dir.file("model.cpp"));
  REQUIRE_MESSAGE(built.empty(), built[0].render());
  const std::string cpp = ss::test::read_file(dir.file("model.cpp"));
  CHECK(cpp.find("//   double -> ss_double\n") != std::string::npos);
  CHECK(cpp.find("//   a__b -> ss_a_0_0b\n") != std::string::npos);
  CHECK(cpp.find("//   f_updated -> ss_f_0updated\n") != std::string::npos);
  CHECK(cpp.find("//   logits") == std::string::npos);
  const auto compiled = ss::test::run_process(
      {"g++", "-std=c++17", "-O0", "-Wall", "-Werror", "-Wshadow=global", "-I" + dir.path(),
       std::string(ss::test::kSourceDir) + "/tests/standalone/harness.cpp", "-o",
       dir.file("harness")},
      {.merge_stderr = true});
  REQUIRE_MESSAGE(compiled.exit_code == 0, compiled.out);
  dir.write("inputs.txt", "x 0 1 4 1 2 3 4\n");  // f32, rank 1, [4]
  for (std::size_t k = 0; k < names.size(); ++k) {
    INFO(names[k]);
    const auto ran =
        ss::test::run_process({dir.file("harness"), dir.file("inputs.txt"), names[k]}, {});
    REQUIRE(ran.exit_code == 0);
    const double m = static_cast<double>(k + 1);
    char want[128];
    std::snprintf(want, sizeof want, "4 %.9g %.9g %.9g %.9g\n", m, 2 * m, 3 * m, 4 * m);
    CHECK(ran.out == want);
  }
}
