// Host functions (`extern fn`): bound before load by lambdas or by kinds
// and a call, checked against the declarations at load (E1606, E1607),
// called from the controller with tensors, numbers and strings, even
// inside tensor expressions; a failure or a result that doesn't fit is
// E1608 at the call.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "shapescript/shapescript.hpp"
#include "support/process.hpp"
#include "support/program_run.hpp"

namespace {

constexpr const char* kProgram = R"(dim N = 3

extern fn reward(s: [N]) -> []
extern fn note(text: str, times: int) -> int

fn main():
    x = ones([N]) * 2.0
    print("reward", reward(x) + 1.0)
    print("count", note("hi", 3) * 2)
    if reward(x) > 10.0:
        print("big")
)";

using Run = ss::test::ProgramRun;

Run run(const std::string& text, const ss::LoadOptions& options) {
  ss::test::TempDir dir;
  return ss::test::run_main(dir.write("host.ss", text), options);
}

ss::LoadOptions bound() {
  ss::LoadOptions options;
  options.host_functions["reward"] = [](const ss::Tensor& s) {
    float total = 0;
    for (const float x : s.to_floats()) total += x * x;
    return ss::Tensor::scalar(total);
  };
  options.host_functions["note"] = [](std::string text, int times) {
    return static_cast<int>(text.size()) * times;
  };
  return options;
}

}  // namespace

TEST_CASE("a program calls the host's functions with tensors, numbers and strings") {
  const Run r = run(kProgram, bound());
  REQUIRE_MESSAGE(r.diagnostics.empty(), r.diagnostics[0].render());
  CHECK(r.printed == "reward 13.0\ncount 12\nbig\n");
}

TEST_CASE("an extern fn left unbound is E1606 at load, and nothing runs") {
  auto options = bound();
  options.host_functions.erase("note");
  const Run r = run(kProgram, options);
  CHECK(r.code() == "E1606");
  CHECK(r.diagnostics.at(0).message == "the host bound no function for `extern fn note`");
  CHECK(r.diagnostics.at(0).location.line == 4);
  CHECK(r.printed.empty());
}

TEST_CASE("a binding whose kinds don't fit its declaration is E1607 at load") {
  using K = ss::HostValue::Kind;
  const auto call = [](const std::vector<ss::HostValue>&) { return ss::HostValue::of(1.0); };
  for (const auto& misfit : {ss::HostFunction({K::tensor}, K::number, call),  // result
                             ss::HostFunction({K::string}, K::number, call),  // one short
                             ss::HostFunction({K::number, K::number}, K::number, call),  // kind
                             ss::HostFunction([](const std::string&) { return 1; })}) {
    auto options = bound();
    options.host_functions["note"] = misfit;
    const Run r = run(kProgram, options);
    CHECK(r.code() == "E1607");
    CHECK(r.printed.empty());
  }
  auto options = bound();
  options.host_functions["note"] = ss::HostFunction({K::string, K::number}, K::number, call);
  CHECK(run(kProgram, options).diagnostics.empty());  // by kinds and a call: fits
}

TEST_CASE("a host function that throws, or returns what doesn't fit, is E1608 at the call") {
  auto options = bound();
  options.host_functions["reward"] = [](const ss::Tensor&) -> ss::Tensor {
    throw std::runtime_error("the simulator is down");
  };
  Run r = run(kProgram, options);
  REQUIRE(r.code() == "E1608");
  CHECK(r.diagnostics[0].message == "the host function `reward` failed: the simulator is down");
  CHECK(r.diagnostics[0].location.line == 8);  // the call in main
  CHECK(r.printed.empty());

  options.host_functions["reward"] = [](const ss::Tensor& s) { return s; };  // [3], not []
  r = run(kProgram, options);
  REQUIRE(r.code() == "E1608");
  CHECK(r.diagnostics[0].message.find("returned a f32 tensor of shape [3], where its `extern fn` "
                                      "declares []") != std::string::npos);

  using K = ss::HostValue::Kind;
  options.host_functions["reward"] =
      ss::HostFunction({K::tensor}, K::tensor,
                       [](const std::vector<ss::HostValue>&) { return ss::HostValue::of(2.0); });
  r = run(kProgram, options);  // its binding says tensor; it returns a number
  REQUIRE(r.code() == "E1608");
  CHECK(r.diagnostics[0].message.find("returned a number") != std::string::npos);
}
