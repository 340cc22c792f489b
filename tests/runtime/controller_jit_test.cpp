// Controller functions compiled by the JIT (tier 1): their control flow as
// machine code calling back for each instruction's work. Every program
// prints the same lines and fails with the same diagnostics compiled as
// interpreted, and a failure inside compiled code comes back as the
// program's coded error (no exception ever unwinds through generated code).
#include <doctest/doctest.h>

#include "ir/host.hpp"
#include "lower/lower.hpp"
#include "lower/pipeline.hpp"
#include "runtime/controller/controller.hpp"
#include "runtime/fast/jit_module.hpp"
#include "support/checked_program.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;

struct Run {
  std::string printed;
  std::vector<ss::Diagnostic> errors;
  std::map<std::string, int> compiled, interpreted;  // calls, by function
};

Run run(const ss::test::CheckedProgram& p, const std::string& function,
        const std::map<std::string, Tensor>& args, const SsJitApi* jit) {
  const auto program = ss::lower::run_pipeline(p.typed).program;
  Run r;
  ss::runtime::RunOptions options{.print = [&](std::string_view s) { r.printed += s; }, .jit = jit};
  options.on_call = [&](const std::string& name, bool compiled) {
    ++(compiled ? r.compiled : r.interpreted)[name];
  };
  r.errors = ss::runtime::run_function(program, *p.map, function, args, options);
  return r;
}

std::string rendered(const Run& r) {
  std::string out;
  for (const auto& d : r.errors) out += d.render();
  return out;
}

}  // namespace

TEST_CASE("compiled controller code prints what the interpreter prints, and fails alike") {
  const auto jit = ss::runtime::JitModule::load(ss::test::kJitPath);
  if (!jit) {
    ss::test::skip("no JIT module in this build: every function is interpreted");
    return;
  }
  const auto controller = ss::test::check_source_file("tests/programs/run/controller.ss");
  const auto prints = ss::test::check_source_file("tests/programs/run/prints.ss");
  const Tensor x = Tensor::from_values(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6});
  struct Case {
    const ss::test::CheckedProgram* program;
    std::string function;
    std::map<std::string, Tensor> args;
  };
  const std::vector<Case> cases = {
      {controller.get(),
       "main",
       {{"steps", Tensor::scalar(DType::i32, 5)},
        {"lr", Tensor::scalar(DType::f32, 0.5)},
        {"x", x}}},
      {controller.get(),
       "main",
       {{"steps", Tensor::scalar(DType::i32, 0)}, {"lr", Tensor::scalar(DType::f32, 2)}, {"x", x}}},
      {controller.get(), "unbound", {{"flag", Tensor::scalar(DType::i32, 1)}}},
      {controller.get(), "unbound", {{"flag", Tensor::scalar(DType::i32, 0)}}},  // E1508
      {controller.get(), "main", {{"steps", Tensor::scalar(DType::i32, 2)}}},    // E1605
      {prints.get(), "main", {}},
  };
  int failed = 0;
  for (const auto& c : cases) {
    CAPTURE(c.function);
    const Run interpreted = run(*c.program, c.function, c.args, nullptr);
    const Run compiled = run(*c.program, c.function, c.args, &jit->api());
    CHECK(compiled.printed == interpreted.printed);
    CHECK(rendered(compiled) == rendered(interpreted));
    failed += !compiled.errors.empty();
    // Each call ran on the code the run was given: compiled, or interpreted.
    CHECK(compiled.interpreted.empty());
    CHECK(compiled.compiled == interpreted.interpreted);
    CHECK(interpreted.compiled.empty());
  }
  CHECK(failed == 2);
  // The functions a run calls are compiled: main, grid, first_multiple twice.
  const Run r = run(*controller, "main", cases[0].args, &jit->api());
  CHECK(r.compiled == std::map<std::string, int>{{"first_multiple", 2}, {"grid", 1}, {"main", 1}});
  CHECK(r.printed.find("first 7 none -1") != std::string::npos);
  // An error inside a compiled function points where the interpreter's does.
  const Run unbound = run(*controller, "unbound", cases[3].args, &jit->api());
  REQUIRE(unbound.errors.size() == 1);
  CHECK(unbound.errors[0].code == "E1508");
}
