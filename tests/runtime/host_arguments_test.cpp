// One binder of a host's arguments for Module::call and `run --arg`: the
// same matching, the same messages, the help saying where they came from.
#include <doctest/doctest.h>

#include "runtime/core/host_arguments.hpp"

namespace {

using ss::runtime::ArgumentSource;
using ss::runtime::DType;
using ss::runtime::Tensor;
using ss::types::Axis;
using ss::types::Type;

ss::runtime::WantedInputs wanted() {
  return {"f",
          {{"x", Type::tensor({Axis::generic("b"), Axis::dim("D")})}, {"n", Type::scalar()}},
          "parameter",
          "its parameters are named in its `fn` line"};
}

}  // namespace

TEST_CASE("host arguments: every input given and nothing else, or the first mistake coded") {
  const Tensor t = Tensor::scalar(DType::f32, 1);
  CHECK_FALSE(ss::runtime::match_arguments(wanted(), {{"x", t}, {"n", t}}, ArgumentSource::host));

  const auto missing =
      ss::runtime::match_arguments(wanted(), {{"x", t}, {"zz", t}}, ArgumentSource::command_line);
  REQUIRE(missing);  // a missing input is told before a name it lacks
  CHECK(missing->code == "E1605");
  CHECK(missing->message == "`f` needs `n`, a []");
  CHECK(missing->help == "give it with `--arg n=VALUE`");
  const auto from_host = ss::runtime::match_arguments(wanted(), {{"x", t}}, ArgumentSource::host);
  REQUIRE(from_host);
  CHECK(from_host->help == "pass it by position, or by name: {\"n\", tensor}");

  const auto unknown =
      ss::runtime::match_arguments(wanted(), {{"x", t}, {"n", t}, {"m", t}}, ArgumentSource::host);
  REQUIRE(unknown);
  CHECK(unknown->code == "E1603");
  CHECK(unknown->message == "`f` has no parameter `m`");
  CHECK(unknown->help == "its parameters are named in its `fn` line");

  const auto bad = ss::runtime::mismatched_argument("`x` is [b D]", ArgumentSource::command_line);
  CHECK(bad.code == "E1603");
  CHECK(bad.help.find("`--arg`") != std::string::npos);
  CHECK(ss::runtime::mismatched_argument("`x`", ArgumentSource::host).help ==
        "pass a tensor of the declared shape and element type");
}
