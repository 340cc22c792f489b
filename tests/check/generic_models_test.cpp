// Generic models (docs/language.md#generic-models): `model Linear[I, O]`
// instantiated with dims, nested, taken by functions as `Linear[i, o]`,
// trained with an optimiser over an instance, named by hosts as the source
// writes them, checkpoints named as without generics; and each mistake's code.
#include <doctest/doctest.h>

#include "shapescript/shapescript.hpp"
#include "support/check_codes.hpp"

namespace {

using ss::test::codes;
using ss::test::Codes;

Codes check(const std::string& source) {
  return ss::test::check_codes(source);
}

constexpr const char* kProgram = R"(dim D = 4
dim E = 8
dim C = 3

model Linear[I, O]:
    param w: [I O] = glorot
    param b: [O] = uniform(low=-0.1, high=0.1)

model Block[K]:
    up: Linear[K, 2*K]
    down: Linear[2*K, K]

model Net:
    inp: Linear[D, E]
    mid: Block[E]
    out: Linear[E, C]

# The same model written without generics: the same draws, the same names.
model LinearDE:
    param w: [D E] = glorot
    param b: [E] = uniform(low=-0.1, high=0.1)
model LinearE2E:
    param w: [E 2*E] = glorot
    param b: [2*E] = uniform(low=-0.1, high=0.1)
model Linear2EE:
    param w: [2*E E] = glorot
    param b: [E] = uniform(low=-0.1, high=0.1)
model LinearEC:
    param w: [E C] = glorot
    param b: [C] = uniform(low=-0.1, high=0.1)
model PlainBlock:
    up: LinearE2E
    down: Linear2EE
model Plain:
    inp: LinearDE
    mid: PlainBlock
    out: LinearEC

fn linear(m: Linear[i, o], x: [n i]) -> [n o] = x @ m.w + m.b
fn block(m: Block[k], x: [n k]) -> [n k] = x + linear(m.down, relu(linear(m.up, x)))

fn logits(m: Net, x: [n D]) -> [n C] = linear(m.out, block(m.mid, relu(linear(m.inp, x))))
fn loss(m: Net, x: [n D], y: [n] Index[C]) -> [] = cross_entropy(logits(m, x), y, over=C)

fn step(mut m: Net, mut opt: AdamW[Net], x: [n D], y: [n] Index[C]) -> []:
    l, g = value_and_grad(loss, m, x, y)
    update(mut m, mut opt, g)
    return l

fn probe(m: Linear[i, o], x: [n i]) -> [n o] = linear(m, x)
fn fit(mut m: Linear[i, o], mut opt: AdamW[Linear[i, o]], x: [n i]) -> []:
    l, g = value_and_grad(spread, m, x)
    update(mut m, mut opt, g)
    return l
fn spread(m: Linear[i, o], x: [n i]) -> [] = sum(linear(m, x) ** 2)

fn main():
    m = Linear[D, 2](seed=0)
    opt = AdamW(m, lr=0.1)
    x = normal([5 D], seed=2)
    first = fit(mut m, mut opt, x)
    for k in range(20):
        l = fit(mut m, mut opt, x)
    print(first > l)
)";

}  // namespace

TEST_CASE("generic models nest, draw and name their parameters as models written out do") {
  CHECK(check(kProgram).empty());
  const ss::Engine engine;
  std::string printed;
  ss::LoadOptions options;
  options.print = [&](std::string_view s) { printed += s; };
  const ss::Module mod = engine.load_source(kProgram, "t.ss", options);
  REQUIRE_MESSAGE(mod, (mod.diagnostics().empty() ? "" : mod.diagnostics()[0].render()));
  const ss::Value net = mod.make("Net", {.seed = 3});
  const ss::Value plain = mod.make("Plain", {.seed = 3});
  REQUIRE(net);
  REQUIRE(plain);
  const auto a = net.tensors(), b = plain.tensors();
  CHECK(a.size() == 8);
  REQUIRE(a.size() == b.size());
  for (const auto& entry : a) {
    const std::string& path = entry.first;  // not a binding: clang 14's CAPTURE can't take one
    const ss::Tensor& t = entry.second;
    CAPTURE(path);
    REQUIRE(b.count(path));  // inp.w, mid.up.b, ...: the same names
    CHECK(t.shape() == b.at(path).shape());
    CHECK(t.to_floats() == b.at(path).to_floats());
  }
  CHECK(a.count("mid.down.w"));
  // Training through generic functions lowers its loss.
  ss::Value opt = mod.make_optimizer("AdamW", net, {{"lr", 0.01}});
  std::vector<float> x(12 * 4);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 5) * 0.3f - 0.6f;
  std::vector<std::int32_t> y(12);
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<std::int32_t>(i % 3);
  const auto xt = ss::Tensor::view(x.data(), {12, 4});
  const auto yt = ss::Tensor::view(y.data(), {12});
  double first = 0, last = 0;
  for (int s = 0; s < 30; ++s) {
    const auto r = mod.call("step", {ss::mut(net), ss::mut(opt), xt, yt});
    REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? "" : r.diagnostics[0].render()));
    (s == 0 ? first : last) = r.tensor().to_floats()[0];
  }
  CHECK(last < first);
  // A controller making an instance, training it through AdamW[Linear[i, o]].
  REQUIRE(mod.call("main", std::vector<ss::Arg>{}));
  CHECK(printed == "True\n");
}

TEST_CASE("a host names an instance as the source writes it") {
  const ss::Engine engine;
  const ss::Module mod = engine.load_source(kProgram, "t.ss");
  REQUIRE(mod);
  const ss::Value lin = mod.make("Linear[D, E]", {.seed = 1});
  REQUIRE(lin);
  CHECK(lin.type() == "Linear[D, E]");
  CHECK(lin.tensors().at("w").shape() == std::vector<std::int64_t>{4, 8});
  std::vector<float> x(2 * 4, 0.5f);
  const auto r = mod.call("probe", {lin, ss::Tensor::view(x.data(), {2, 4})});
  REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? "" : r.diagnostics[0].render()));
  CHECK(r.tensor().shape() == std::vector<std::int64_t>{2, 8});
  // The base alone, or an instance the program doesn't have, is no type of it.
  CHECK_FALSE(mod.make("Linear", {.seed = 1}));
  CHECK_FALSE(mod.make("Linear[E, D]", {.seed = 1}));
}

TEST_CASE("generic models' mistakes give their codes") {
  const std::string lin = "dim D = 4\nmodel Linear[I, O]:\n    param w: [I O] = zeros\n";
  CHECK(check(lin + "model Net:\n    l: Linear\n") == Codes{"E1108"});
  CHECK(check(lin + "model Net:\n    l: Linear[D]\n") == Codes{"E1108"});
  CHECK(check(lin + "fn main():\n    m = Linear[D, n](seed=0)\n") == Codes{"E0703"});
  // Made in code without its dims (it was an internal error at lowering).
  CHECK(check(lin + "fn main():\n    m = Linear(seed=0)\n") == Codes{"E1108"});
  CHECK(check("dim D = 4\nmodel Linear[D, O]:\n    param w: [D O] = zeros\n") == Codes{"E1109"});
  CHECK(check("dim D = 4\nmodel Plain:\n    param w: [D] = zeros\nmodel Net:\n    p: Plain[D]\n") ==
        Codes{"E1108"});
  CHECK(check("model A[I]:\n    b: B[I]\nmodel B[I]:\n    a: A[2*I]\n") == Codes{"E1105", "E1105"});
  // The instance's dims pair with the function's generic axes like a tensor's.
  CHECK(check(lin + "fn f(m: Linear[i, o], x: [n o]) -> [n o] = x @ m.w\n") == Codes{"E0603"});
  CHECK(check(lin + "fn f(m: Linear[i, o], x: [n i]) -> [n o] = x @ m.w\n"
                    "model Net:\n    l: Linear[D, 3]\n"
                    "fn g(m: Net, x: [n 3]) -> [n 3] = f(m.l, x)\n") == Codes{"E0607"});
  // Another model where one is expected (a generic one's base, or a plain one).
  CHECK(check("dim D = 4\nmodel A:\n    param w: [D] = zeros\nmodel B:\n    param v: [D] = zeros\n"
              "fn f(m: A) -> [D] = m.w\nfn g(m: B) -> [D] = f(m)\n") == Codes{"E0606"});
}
