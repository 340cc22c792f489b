// Sizes are 64-bit integers (E0409 past 2^63 - 1, never a wrapped number),
// and a split's given sizes must make its axis (E0708): at check time where
// the sizes are static, at load for the host's dims, in the call otherwise.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "shapescript/shapescript.hpp"
#include "support/check_codes.hpp"

namespace {

using ss::test::codes;
using ss::test::Codes;

Codes check(const std::string& source) {
  return ss::test::check_codes(source);
}

const std::string kHalf = "4611686018427387904";  // 2^62

}  // namespace

TEST_CASE("a dim expression or an axis past 2^63 - 1 is E0409, not a wrapped size") {
  // The fuzzer's: two literals whose product wraps to a positive size.
  CHECK(check("dim D = 7662796314522419452*41918\n") == Codes{"E0409"});
  CHECK(check("dim D = " + kHalf + "\ndim E = D * 2\n") == Codes{"E0409"});
  CHECK(check("dim D = " + kHalf + "\ndim E = D + D\n") == Codes{"E0409"});
  CHECK(check("dim D = " + kHalf + "\ndim E = D + D - 1\n") == Codes{"E0409"});
  CHECK(check("dim D = 9223372036854775807\ndim E = (D + 1) // 2\n") == Codes{"E0409"});
  CHECK(check("dim D = " + kHalf + "\nfn f(x: [2*D]) -> [] = sum(x)\n") == Codes{"E0409"});
  CHECK(check("dim D = " + kHalf + "\nfn f(x: [(D*4)]) -> [] = sum(x)\n") == Codes{"E0409"});
  CHECK(check("fn f(x: [" + kHalf + "*2]) -> [] = sum(x)\n") == Codes{"E0409"});
  // Just inside: 2^62 - 1 + 2^62 is 2^63 - 1.
  CHECK(check("dim D = " + kHalf + "\ndim E = D - 1 + D\n").empty());
  CHECK(check("dim D = " + kHalf + "\nfn f(x: [D-1+D]) -> [] = sum(x)\n").empty());
}

TEST_CASE("a pattern's group or split past 2^63 - 1 is E0409") {
  CHECK(check("dim D = " + kHalf + "\nfn f(x: [D 4]) -> [] = sum(rearrange(x, a b -> (a b)))\n") ==
        Codes{"E0409"});
  CHECK(check("fn f(x: [" + kHalf + " 4]) -> [] = sum(rearrange(x, a b -> (a b)))\n") ==
        Codes{"E0409"});
  CHECK(check("fn f(x: [8]) -> [] = sum(rearrange(x, (a b) -> a b, a=" + kHalf + ", b=4))\n") ==
        Codes{"E0409"});
  CHECK(check("fn f(x: [n]) -> [] = sum(rearrange(x, (a b c) -> a b c, a=" + kHalf + ", b=4))\n") ==
        Codes{"E0409"});
}

TEST_CASE("a host's sizes that make a dim expression pass 2^63 - 1 are E0409 at load") {
  static const ss::Engine engine;
  const std::string program = "dim H\ndim H2 = H * 4\nfn f(x: [H2]) -> [] = sum(x)\n";
  ss::LoadOptions options;
  options.dims = {{"H", 8}};
  CHECK(engine.load_source(program, "t.ss", options));
  options.dims = {{"H", std::int64_t{1} << 62}};
  CHECK(codes(engine.load_source(program, "t.ss", options).diagnostics()) == Codes{"E0409"});
}

TEST_CASE("a split whose parts are all given must make its axis (E0708)") {
  CHECK(check("fn f(x: [8]) -> [2 4] = rearrange(x, (a b) -> a b, a=2, b=4)\n").empty());
  CHECK(check("fn f(x: [8]) -> [2 2] = rearrange(x, (a b) -> a b, a=2, b=2)\n") == Codes{"E0708"});
  // A plain name's size is its axis's.
  CHECK(check("fn f(x: [2 4]) -> [8] = rearrange(x, a b -> (a b), a=2)\n").empty());
  CHECK(check("fn f(x: [2 4]) -> [8] = rearrange(x, a b -> (a b), a=3)\n") == Codes{"E0708"});
  // Known only in the call: checked there, before anything is reshaped.
  static const ss::Engine engine;
  const ss::Module m = engine.load_source(
      "fn f(x: [n]) -> [2 2] = rearrange(x, (a b) -> a b, a=2, b=2)\n"
      "fn g(x: [n m]) -> [] = sum(rearrange(x, a b -> (a b), a=3))\n",
      "t.ss");
  REQUIRE(m);
  const std::vector<float> eight(8, 1.0f);
  const auto four = m.call("f", {ss::Tensor::view(eight.data(), {4})});
  REQUIRE(four);
  CHECK(four.tensor().shape() == std::vector<std::int64_t>{2, 2});
  const auto wrong = m.call("f", {ss::Tensor::view(eight.data(), {8})});
  REQUIRE_FALSE(wrong);
  REQUIRE(codes(wrong.diagnostics) == Codes{"E0708"});
  CHECK(wrong.diagnostics[0].message == "the sizes given for an axis of size 8 make 4");
  CHECK(m.call("g", {ss::Tensor::view(eight.data(), {3, 2})}));
  CHECK(codes(m.call("g", {ss::Tensor::view(eight.data(), {2, 4})}).diagnostics) == Codes{"E0708"});
}
