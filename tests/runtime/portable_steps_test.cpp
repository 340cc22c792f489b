// runtime/fast/portable/portable_steps: a kernel's JIT steps run in C++.
// Its bits against the JIT's are held by portable_numerics_test (every
// graph with and without the JIT); here, what it refuses and a few values.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "ir/ops.hpp"
#include "jit/jit_api.h"
#include "runtime/fast/portable/portable_steps.hpp"

namespace portable = ss::runtime::fast::portable;

namespace {

SsJitStep step(std::int32_t op, std::int32_t kind = 0, std::int32_t a = -1, std::int32_t b = -1,
               float value = 0) {
  return {.op = op, .kind = kind, .a = a, .b = b, .c = -1, .value = value, .wide_value = 0};
}

}  // namespace

TEST_CASE("portable steps refuse what the JIT wouldn't build, and libm's functions") {
  using S = portable::Steps;
  CHECK_FALSE(S::make({}));
  CHECK_FALSE(S::make({step(SS_JIT_LOAD, 0, 0), step(SS_JIT_BINARY, SS_JIT_ADD, 0, 5)}));
  CHECK_FALSE(S::make({step(SS_JIT_LOAD_BOOL, 0, 0), step(SS_JIT_LOAD_BOOL, 0, 1),
                       step(SS_JIT_BINARY, SS_JIT_ADD, 0, 1)}));  // arithmetic on two bools
  CHECK_FALSE(S::make({step(SS_JIT_LOAD, 0, 0), step(SS_JIT_WIDEN, 0, 0)}));          // not a float
  CHECK_FALSE(S::make({step(SS_JIT_LOAD, 0, 0), step(SS_JIT_CALL, SS_JIT_EXP, 0)}));  // libm's
  CHECK_FALSE(S::make({step(SS_JIT_LOAD, 0, 0), step(SS_JIT_WIDEN, 0, 0),
                       step(SS_JIT_BINARY, SS_JIT_ADD, 0, 1)}));  // a float beside a double
  const auto fine =
      S::make({step(SS_JIT_LOAD, 0, 0), step(SS_JIT_CONSTANT, 0, -1, -1, 0.5f),
               step(SS_JIT_BINARY, SS_JIT_MUL, 0, 1), step(SS_JIT_CALL, SS_JIT_PORTABLE_EXP, 2)});
  REQUIRE(fine);
  const float x = 2.0f;
  CHECK((*fine)(&x) == doctest::Approx(std::exp(1.0)).epsilon(1e-6));
}

TEST_CASE(
    "portable steps of the elementwise functions: sigmoid, gelu and pow as the formulas say") {
  const portable::Steps* sigmoid = portable::unary_steps(ss::ir::Unary::sigmoid);
  const portable::Steps* gelu = portable::unary_steps(ss::ir::Unary::gelu);
  const portable::Steps* pow = portable::binary_steps(ss::ir::Binary::pow);
  REQUIRE(sigmoid);
  REQUIRE(gelu);
  REQUIRE(pow);
  for (const float x : {-30.0f, -2.5f, -0.1f, 0.0f, 0.7f, 3.0f, 40.0f}) {
    CAPTURE(x);
    CHECK((*sigmoid)(&x) == doctest::Approx(1 / (1 + std::exp(-static_cast<double>(x)))));
    CHECK((*gelu)(&x) ==
          doctest::Approx(0.5 * x * (1 + std::erf(x / std::sqrt(2.0)))).epsilon(1e-5).scale(1e-6));
  }
  const float args[2] = {-2.0f, 3.0f}, odd[2] = {-2.0f, 0.5f};
  CHECK((*pow)(args) == -8.0f);
  const float nan = (*pow)(odd);
  std::uint32_t bits;
  std::memcpy(&bits, &nan, sizeof bits);
  CHECK(bits == 0xffc00000u);  // x86's NaN, as the arithmetic makes
}
