// Stacks and scans as the checker sees them (docs/language.md#stacks-of-layers):
// what a stack's count may be (E1110), how a layer is picked (E1513), what
// a scan's body may carry and do (E1511, E1512), its names' scope, and a
// scan along the batch axis on several devices (E1801).
#include <doctest/doctest.h>

#include "support/check_codes.hpp"

namespace {

using ss::test::Codes;

constexpr const char* kHead =
    "dim D = 4\ndim L = 3\ndim T = 5\nmodel Block:\n    param w: [D D] = glorot\n"
    "model Net:\n    blocks: [L] Block\n";

Codes check(const std::string& body) {
  return ss::test::check_codes(kHead + body);
}

}  // namespace

TEST_CASE("a stack's count is a literal or a sized dim, one axis, at least 1") {
  CHECK(ss::test::check_codes("dim D = 4\nmodel B:\n    param w: [D] = zeros\nmodel N:\n    "
                              "blocks: [2] B\n")
            .empty());
  CHECK(ss::test::check_codes("dim D = 4\ndim L\nmodel B:\n    param w: [D] = zeros\nmodel N:\n    "
                              "blocks: [L] B\n") == Codes{"E1110"});
  CHECK(ss::test::check_codes("dim D = 4\nmodel B:\n    param w: [D] = zeros\nmodel N:\n    "
                              "blocks: [2 3] B\n") == Codes{"E1110"});
  CHECK(ss::test::check_codes("dim D = 4\nmodel B:\n    param w: [D] = zeros\nmodel N:\n    "
                              "blocks: [0] B\n") == Codes{"E0403"});  // as any axis of size 0
  // A stack of a generic model's instance; one inside a generic model of
  // the model's own dims is refused.
  CHECK(ss::test::check_codes("dim D = 4\nmodel Lin[I, O]:\n    param w: [I O] = glorot\nmodel N:\n"
                              "    blocks: [2] Lin[D, D]\n")
            .empty());
  CHECK(ss::test::check_codes("model Lin[I, O]:\n    param w: [I O] = glorot\nmodel N[K]:\n"
                              "    blocks: [2] Lin[K, K]\n") == Codes{"E1110"});
}

TEST_CASE("a layer by its number: static and in range") {
  CHECK(check("fn f(m: Net) -> [D D] = m.blocks[2].w + m.blocks[-3].w\n").empty());
  CHECK(check("fn f(m: Net) -> [D D] = m.blocks[3].w\n") == Codes{"E1513"});
  CHECK(check("fn f(m: Net) -> [D D] = m.blocks[-4].w\n") == Codes{"E1513"});
  // In device code an int may be an unrolled loop's: lowering decides.
  CHECK(check("fn f(m: Net) -> [D D]:\n    w = m.blocks[0].w\n    for i in range(L):\n"
              "        w = w + m.blocks[i].w\n    return w\n")
            .empty());
  CHECK(check("fn f(m: Net, k: int) -> [D D] = m.blocks[k].w\n") == Codes{"E1513"});
  CHECK(check("fn f(m: Net) -> [D D] = m.blocks[0:2].w\n") == Codes{"E1513"});
  CHECK(check("fn main():\n    m = Net(seed=0)\n    k = 1\n    print(m.blocks[k].w)\n") ==
        Codes{"E1513"});
}

TEST_CASE("a scan carries what it assigns to names bound before, keeping their types") {
  const std::string ok =
      "fn f(m: Net, x: [n D]) -> [n D]:\n    h = x\n    for k in m.blocks:\n"
      "        a = tanh(h @ k.w)\n        h = h + a\n    return h\n";
  CHECK(check(ok).empty());
  // Names first bound in the body aren't visible after it.
  CHECK(check("fn f(m: Net, x: [n D]) -> [n D]:\n    h = x\n    for k in m.blocks:\n"
              "        a = tanh(h @ k.w)\n        h = h + a\n    return a\n") == Codes{"E0301"});
  CHECK(check("fn f(m: Net, x: [n D]) -> [n D]:\n    h = x\n    for k in m.blocks:\n"
              "        h = sum(h, over=D)\n    return x\n") == Codes{"E1511"});
  CHECK(check("fn f(m: Net, x: [n D]) -> [n D]:\n    c = 0\n    for k in m.blocks:\n"
              "        c = c + 1\n    return x\n") == Codes{"E1511"});
}

TEST_CASE("a scan has no break or return, changes no model, and runs in device code") {
  CHECK(check("fn f(m: Net, x: [n D]) -> [n D]:\n    h = x\n    for k in m.blocks:\n"
              "        h = h @ k.w\n        break\n    return h\n") == Codes{"E1512"});
  CHECK(check("fn f(m: Net, x: [n D]) -> [n D]:\n    h = x\n    for k in m.blocks:\n"
              "        return h\n    return h\n") == Codes{"E1512"});
  CHECK(check("fn f(mut m: Net, x: [n D]) -> [n D]:\n    h = x\n    for k in m.blocks:\n"
              "        h = h @ k.w\n        k.w = k.w * 2.0\n    return h\n") == Codes{"E1512"});
  // A `break` of an inner range loop is that loop's.
  CHECK(check("fn f(m: Net, x: [n D]) -> [n D]:\n    h = x\n    for k in m.blocks:\n"
              "        for i in range(2):\n            h = h @ k.w\n            break\n"
              "    return h\n")
            .empty());
  CHECK(check("fn main():\n    m = Net(seed=0)\n    h = ones([2 D])\n    for k in m.blocks:\n"
              "        h = h @ k.w\n    print(h)\n") == Codes{"E1512"});
}

TEST_CASE("slices step along a tensor's axis, named in the for line") {
  CHECK(check("fn f(x: [n T D]) -> [n D]:\n    h = x[T=0]\n    for xt in slices(x, over=T):\n"
              "        h = tanh(h + xt)\n    return h\n")
            .empty());
  CHECK(check("fn f(x: [n T D]) -> [n D]:\n    h = x[T=0]\n    s = slices(x, over=T)\n"
              "    for xt in s:\n        h = tanh(h + xt)\n    return h\n") == Codes{"E1512"});
  // Kept as a value, with no loop at all: nothing could lower it.
  CHECK(check("fn f(x: [n T D]) -> [n T D]:\n    s = slices(x, over=T)\n    return x\n") ==
        Codes{"E1512"});
  CHECK(check("fn f(x: [n T D]) -> [n T D]:\n    print(slices(x, over=T))\n    return x\n") ==
        Codes{"E1512"});
  CHECK(check("fn f(x: [n T D]) -> [n D]:\n    h = x[T=0]\n    for xt in slices(x, over=Q):\n"
              "        h = h + xt\n    return h\n") == Codes{"E0703"});
  // On several devices a scan along the batch axis can't split.
  const std::string devices =
      "devices cpu[0 1]\ndim D = 4\ndata R:\n    x: [D]\n"
      "fn f(batch: [b] R) -> [D]:\n    h = zeros([D])\n    for xt in slices(batch.x, over=b):\n"
      "        h = h + xt\n    return h\n";
  CHECK(ss::test::check_codes(devices) == Codes{"E1801"});
}
