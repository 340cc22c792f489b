// Dims from dims (docs/language.md#dims-from-dims): aliases of their
// expressions, one axis when equal term for term after folding literals; a
// product unifies with a grouped pattern axis; sizes from the host at load;
// and each mistake's code.
#include <doctest/doctest.h>

#include "shapescript/shapescript.hpp"
#include "support/check_codes.hpp"

namespace {

using ss::test::codes;
using ss::test::Codes;

Codes check(const std::string& source) {
  return ss::test::check_codes(source);
}

}  // namespace

TEST_CASE("a product of dims is the axis a grouped pattern makes") {
  CHECK(check("dim H = 8\ndim W = 4\ndim C = 2\ndim F = H * W * C\n"
              "fn f(x: [n H W C]) -> [n F] = rearrange(x, n h w c -> n (h w c))\n")
            .empty());
  // The same factors in another order are another layout.
  CHECK(check("dim H = 8\ndim W = 4\ndim C = 2\ndim F = W * H * C\n"
              "fn f(x: [n H W C]) -> [n F] = rearrange(x, n h w c -> n (h w c))\n") ==
        Codes{"E0605"});
  // An alias of an alias: S2 = S // 2, S4 = S2 // 2, and a product of them.
  CHECK(check("dim S = 8\ndim S2 = S // 2\ndim S4 = S2 // 2\ndim F = S4 * S4\n"
              "fn f(x: [n S//2//2 S4]) -> [n F] = rearrange(x, n h w -> n (h w))\n")
            .empty());
}

TEST_CASE("two dim expressions are one axis when equal term for term, literals folded") {
  CHECK(check("dim H = 8\ndim A = H - 2\ndim B = H - 2\nfn f(x: [A]) -> [B] = x\n").empty());
  CHECK(check("dim H = 8\ndim A = H - 3 + 1\nfn f(x: [A]) -> [H-2] = x\n") == Codes{"E0605"});
  CHECK(check("dim H = 8\ndim A = H - (3 - 1)\nfn f(x: [A]) -> [H-2] = x\n").empty());
  // A literal unifies with a derived dim of its size.
  CHECK(check("dim H = 8\ndim A = H // 2\nfn f() -> [A] = zeros([4])\n").empty());
  CHECK(check("dim H = 8\ndim A = H // 2\nfn f() -> [A] = zeros([5])\n") == Codes{"E0605"});
  // Used as a number, a derived dim is its size.
  static const ss::Engine engine;
  std::string printed;
  ss::LoadOptions options;
  options.print = [&](std::string_view line) { printed += line; };
  const ss::Module m = engine.load_source(
      "dim H = 10\ndim A = (H + 1) // 3\ndim B = A * H - 4\nfn main():\n    print(A, B)\n", "t.ss",
      options);
  REQUIRE(m);
  REQUIRE(m.call("main", std::vector<ss::Arg>{}));
  CHECK(printed == "3 26\n");
}

TEST_CASE("dim expressions' mistakes: not dividing, not positive, a generic axis, unknown dims") {
  CHECK(check("dim H = 7\ndim H2 = H / 2\n") == Codes{"E0407"});
  CHECK(check("dim H = 7\nfn f(x: [H//(H-7)]) -> [] = sum(x)\n") == Codes{"E0407"});
  CHECK(check("dim H = 7\ndim A = H - 7\n") == Codes{"E0402"});
  CHECK(check("fn f(x: [n 4]) -> [n-1 4] = x[n=1:]\n") == Codes{"E0408"});
  CHECK(check("dim D = 4\nfn f(x: [n*D]) -> [n*D] = x\n").empty());  // a factor may be generic
  CHECK(check("dim A = H + 1\n") == Codes{"E0401"});
}

TEST_CASE("a host sizes the dims an expression reads, the expression follows, checked at load") {
  static const ss::Engine engine;
  const std::string program =
      "dim H\ndim H2 = H / 2\nfn f(x: [n H]) -> [n H2] = avg_pool(x, over=[H], window=2, "
      "out=[H2])\n";
  ss::LoadOptions options;
  options.dims = {{"H", 8}};
  const ss::Module ok = engine.load_source(program, "t.ss", options);
  REQUIRE_MESSAGE(ok, (ok.diagnostics().empty() ? "" : ok.diagnostics()[0].render()));
  const std::vector<float> x(16, 1.0f);
  const auto r = ok.call("f", {ss::Tensor::view(x.data(), {2, 8})});
  REQUIRE(r);
  CHECK(r.tensor().shape() == std::vector<std::int64_t>{2, 4});
  options.dims = {{"H", 7}};
  CHECK(codes(engine.load_source(program, "t.ss", options).diagnostics()) == Codes{"E0407"});
  options.dims = {{"H", 8}, {"H2", 4}};
  CHECK(codes(engine.load_source(program, "t.ss", options).diagnostics()) == Codes{"E0406"});
}

TEST_CASE("a window's output size on host-sized dims is checked at load (E0722)") {
  static const ss::Engine engine;
  const std::string program =
      "dim H\ndim H2\nfn f(x: [n H 3]) -> [n H2 3] = max_pool(x, over=[H], window=2, out=[H2])\n";
  ss::LoadOptions options;
  options.dims = {{"H", 8}, {"H2", 4}};
  CHECK(engine.load_source(program, "t.ss", options));
  options.dims = {{"H", 8}, {"H2", 5}};
  const auto d = engine.load_source(program, "t.ss", options).diagnostics();
  REQUIRE(codes(d) == Codes{"E0722"});
  CHECK(d[0].message.find("floor((8 - 1*(2-1) - 1) / 2) + 1 = 4") != std::string::npos);
}
