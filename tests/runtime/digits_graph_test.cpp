// The design's digits program lowered to graphs and run on the reference
// runtime at three batch sizes, against numpy (tests/goldens/digits_mlp.txt).
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "lower/lower.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/checked_program.hpp"
#include "support/digits_fixture.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

using namespace ss;
using runtime::DType;
using runtime::Tensor;

// The fixture's arrays as runtime tensors.
Tensor tensor(const test::digits::Array& a) {
  std::vector<double> values(a.values.begin(), a.values.end());
  return Tensor::from_values(DType::f32, a.shape, values);
}

std::map<std::string, Tensor> parameters() {
  std::map<std::string, Tensor> out;
  for (const auto& [name, a] : test::digits::parameters()) out[name] = tensor(a);
  return out;
}

Tensor pixels(std::int64_t b) {
  return tensor(test::digits::pixels(b));
}

Tensor labels(std::int64_t b) {
  const auto l = test::digits::labels(b);
  return Tensor::from_values(DType::i32, {b}, std::vector<double>(l.begin(), l.end()));
}

void check_close(const Tensor& got, const std::vector<double>& want) {
  REQUIRE(got.size() == static_cast<std::int64_t>(want.size()));
  const auto& t = ss::test::tolerance("golden");
  int wrong = 0;
  for (std::int64_t i = 0; i < got.size(); ++i) {
    const double w = want[static_cast<std::size_t>(i)];
    if (ss::test::agrees(got.get(i), w, 1, t)) continue;
    if (++wrong <= 3) FAIL_CHECK("element " << i << ": " << got.get(i) << ", numpy " << w);
  }
}

}  // namespace

TEST_CASE("one graph of the design's logits runs at batch sizes 1, 64 and 1000 and matches numpy") {
  const auto program = test::check_source_file("examples/digits/digits.ss");
  const ir::Graph logits = lower::lower_function(program->typed, "logits");  // prepared once
  CHECK(ir::verify(logits).empty());
  CHECK(logits.symbols == std::set<std::string>{"b"});
  const std::string before = ir::print(logits);
  for (const std::int64_t b : {1, 64, 1000}) {
    CAPTURE(b);
    auto inputs = parameters();
    inputs["x"] = pixels(b);
    const auto out = runtime::run_graph(logits, inputs, program->typed.dims);
    REQUIRE(out.size() == 1);
    CHECK(runtime::shape_str(out[0].shape()) == "[" + std::to_string(b) + " 10]");
    check_close(out[0], test::digits::golden("logits " + std::to_string(b)));
  }
  CHECK(ir::print(logits) == before);  // nothing in the graph depends on a batch size
}

TEST_CASE("the loss and accuracy graphs inline logits and match numpy") {
  const auto program = test::check_source_file("examples/digits/digits.ss");
  const ir::Graph loss = lower::lower_function(program->typed, "loss");
  const ir::Graph accuracy = lower::lower_function(program->typed, "accuracy");
  for (const std::int64_t b : {1, 64, 1000}) {
    CAPTURE(b);
    auto inputs = parameters();
    inputs["batch.pixels"] = pixels(b);
    inputs["batch.label"] = labels(b);
    check_close(runtime::run_graph(loss, inputs, program->typed.dims).at(0),
                test::digits::golden("loss " + std::to_string(b)));
    check_close(runtime::run_graph(accuracy, inputs, program->typed.dims).at(0),
                test::digits::golden("accuracy " + std::to_string(b)));
  }
}

TEST_CASE("the logits graph prints as its snapshot") {
  const auto program = test::check_source_file("examples/digits/digits.ss");
  CHECK(ir::print(lower::lower_function(program->typed, "logits")) ==
        test::read_file(std::string(test::kSourceDir) + "/tests/goldens/logits.ir"));
}

TEST_CASE("inputs of the wrong shape or element type are named, not run") {
  const auto program = test::check_source_file("examples/digits/digits.ss");
  const ir::Graph logits = lower::lower_function(program->typed, "logits");
  auto inputs = parameters();
  inputs["x"] = Tensor::zeros(DType::f32, {5, 63});
  try {
    (void)runtime::run_graph(logits, inputs, program->typed.dims);
    FAIL("no InputMismatch");
  } catch (const runtime::InputMismatch& e) {
    CHECK(e.input == "x");
    CHECK(std::string(e.what()) == "`x` is [b D]: its axis D has size 64, given 63");
  }
  inputs["x"] = Tensor::zeros(DType::i32, {5, 64});
  CHECK_THROWS_WITH_AS(runtime::run_graph(logits, inputs, program->typed.dims),
                       "`x` holds f32, given i32", runtime::InputMismatch);
  inputs.erase("x");
  CHECK_THROWS_AS(runtime::run_graph(logits, inputs, program->typed.dims), runtime::InputMismatch);
  CHECK_THROWS_AS(lower::lower_function(program->typed, "main"), lower::NotLowered);
}
