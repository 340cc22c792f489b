// Controller functions in their compact form (ir/host.hpp): lowered, verified
// and run by the reference runtime, with parameters bound from the host.
#include <doctest/doctest.h>

#include "ir/host.hpp"
#include "lower/lower.hpp"
#include "lower/pipeline.hpp"
#include "runtime/controller/controller.hpp"
#include "support/checked_program.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;

struct Run {
  std::string printed;
  std::vector<ss::Diagnostic> errors;
};

Run run(const ss::test::CheckedProgram& p, const std::string& function,
        const std::map<std::string, Tensor>& args) {
  const auto program = ss::lower::run_pipeline(p.typed).program;
  Run r;
  r.errors = ss::runtime::run_function(program, *p.map, function, args,
                                       {.print = [&](std::string_view s) { r.printed += s; }});
  return r;
}

std::string code_of(const Run& r) {
  return r.errors.empty() ? "" : r.errors[0].code;
}

}  // namespace

TEST_CASE("every controller function of the programs lowers to a compact form that verifies") {
  int lowered = 0;
  for (const std::string file :
       {"tests/programs/valid/operations.ss", "tests/programs/valid/features.ss",
        "examples/tinylm/tinylm.ss", "tests/programs/valid/several_cpu_devices.ss",
        "tests/programs/run/prints.ss", "tests/programs/run/controller.ss",
        "examples/digits/digits.ss"}) {
    const auto program = ss::test::check_source_file(file);
    for (const auto& entry : ss::lower::lower_controller(program->typed)) {
      const std::string& name = entry.first;  // clang 14's CAPTURE can't take a binding
      const ss::ir::HostFunction& fn = entry.second;
      CAPTURE(file);
      CAPTURE(name);
      CHECK(ss::ir::verify(fn) == "");
      CHECK(fn.code.back().op == ss::ir::HostOp::ret);
      ++lowered;
    }
  }
  CHECK(lowered >= 8);
}

TEST_CASE("the compact form of a loop is a counter, a test that jumps past it, and a jump back") {
  const auto p = ss::test::check_source_file("tests/programs/run/controller.ss");
  const auto fn = ss::lower::lower_controller_function(p->typed, "first_multiple");
  const std::string listing = ss::ir::print(fn);
  CAPTURE(listing);
  CHECK(listing.find("controller first_multiple($0(of), $1(limit))") == 0);
  CHECK(listing.find("loop_start") != std::string::npos);
  CHECK(listing.find("loop_next") != std::string::npos);
  CHECK(listing.find("branch_unless") != std::string::npos);
  // `i % of == 0` on two ints: the controller's own exact arithmetic, no graph.
  CHECK(listing.find("arith % $2(i) $0(of)") != std::string::npos);
  CHECK(listing.find("arith == ") != std::string::npos);
  CHECK(fn.graphs.empty());
}

TEST_CASE("the verifier refuses jumps out of the function, bad slots and a graph's wrong inputs") {
  const auto p = ss::test::check_source_file("tests/programs/run/controller.ss");
  int graphs = 0;
  for (const char* function : {"first_multiple", "main"}) {
    CAPTURE(function);
    const auto good = ss::lower::lower_controller_function(p->typed, function);
    REQUIRE(ss::ir::verify(good) == "");
    for (std::size_t i = 0; i < good.code.size(); ++i) {
      const auto op = good.code[i].op;
      if (op == ss::ir::HostOp::loop_next || op == ss::ir::HostOp::jump) {
        auto bad = good;
        bad.code[i].target = static_cast<int>(bad.code.size()) + 5;
        CHECK(ss::ir::verify(bad).find("jumps out") != std::string::npos);
      }
      if (op == ss::ir::HostOp::graph && !good.code[i].args.empty()) {
        ++graphs;
        auto bad = good;
        bad.code[i].args.pop_back();
        CHECK(ss::ir::verify(bad).find("graph inputs") != std::string::npos);
      }
      if (!good.code[i].args.empty()) {
        auto bad = good;
        bad.code[i].args[0] = 1000;
        CHECK(ss::ir::verify(bad).find("reads slot 1000") != std::string::npos);
      }
    }
    auto no_return = good;
    no_return.code.pop_back();
    no_return.code.pop_back();
    CHECK(ss::ir::verify(no_return) != "");
  }
  CHECK(graphs > 0);  // the graph case was reached
}

TEST_CASE("a controller function runs with its parameters bound by name from the host") {
  const auto p = ss::test::check_source_file("tests/programs/run/controller.ss");
  const Run r = run(*p, "main",
                    {{"steps", Tensor::scalar(DType::i32, 3)},
                     {"lr", Tensor::scalar(DType::f32, 0.5)},
                     {"x", Tensor::from_values(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6})}});
  REQUIRE(r.errors.empty());
  // total = 0.5 - 0.125 + 0.5; the returned value is printed last.
  CHECK(r.printed ==
        "00 \n"
        "10 11 \n"
        "20 21 22 \n"
        "below 100:\n"
        "below 5:\n"
        "first 7 none -1\n"
        "[[0.875 1.75  2.625] [3.5   4.375 5.25 ]]\n"
        "0.875\n");
}

TEST_CASE("the host's arguments are checked: missing, unknown, mistyped and mis-shaped") {
  const auto p = ss::test::check_source_file("tests/programs/run/controller.ss");
  const auto x = Tensor::from_values(DType::f32, {1, 3}, {1, 2, 3});
  const auto steps = Tensor::scalar(DType::i32, 2), lr = Tensor::scalar(DType::f32, 0.1);
  CHECK(code_of(run(*p, "main", {{"steps", steps}, {"lr", lr}})) == "E1605");
  CHECK(code_of(run(*p, "main", {{"steps", steps}, {"lr", lr}, {"x", x}, {"y", x}})) == "E1603");
  CHECK(code_of(
            run(*p, "main", {{"steps", Tensor::scalar(DType::f32, 2.5)}, {"lr", lr}, {"x", x}})) ==
        "E1603");
  CHECK(code_of(run(*p, "main", {{"steps", x}, {"lr", lr}, {"x", x}})) == "E1603");
  CHECK(code_of(run(*p, "main",
                    {{"steps", steps},
                     {"lr", lr},
                     {"x", Tensor::from_values(DType::f32, {1, 2}, {1, 2})}})) == "E1603");
  CHECK(code_of(run(*p, "main",
                    {{"steps", steps}, {"lr", lr}, {"x", Tensor::zeros(DType::i32, {1, 3})}})) ==
        "E1603");
  // A whole number given as a float is an integer.
  CHECK(run(*p, "main", {{"steps", Tensor::scalar(DType::f32, 2)}, {"lr", lr}, {"x", x}})
            .errors.empty());
}

TEST_CASE("a variable read on a path where no binding ran is E1508, pointing at the read") {
  const auto p = ss::test::check_source_file("tests/programs/run/controller.ss");
  CHECK(run(*p, "unbound", {{"flag", Tensor::scalar(DType::i32, 1)}}).printed == "1\n");
  const Run r = run(*p, "unbound", {{"flag", Tensor::scalar(DType::i32, 0)}});
  REQUIRE(code_of(r) == "E1508");
  REQUIRE(!r.errors[0].labels.empty());
  CHECK(r.errors[0].labels[0].start.line == 33);
  CHECK(r.errors[0].labels[0].start.column == 11);
}
