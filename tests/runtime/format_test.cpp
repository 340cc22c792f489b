// print's formats, against what numpy's str() gives for the same values.
#include <doctest/doctest.h>

#include <cmath>

#include "runtime/core/format.hpp"

using ss::runtime::DType;
using ss::runtime::Tensor;

TEST_CASE("floats print in their shortest round-trip form, as numpy's scalars do") {
  using ss::runtime::format_float;
  CHECK(format_float(0.5, DType::f32) == "0.5");
  CHECK(format_float(1.0, DType::f32) == "1.0");
  CHECK(format_float(static_cast<float>(0.1), DType::f32) == "0.1");
  CHECK(format_float(0.1, DType::f32) == "0.1");
  CHECK(format_float(1e-5, DType::f32) == "1e-05");
  CHECK(format_float(-2.5e20, DType::f32) == "-2.5e+20");
  CHECK(format_float(123456.0, DType::f32) == "123456.0");
  CHECK(format_float(static_cast<float>(3.14159265), DType::f32) == "3.1415927");
  CHECK(format_float(-0.0, DType::f32) == "-0.0");
  CHECK(format_float(INFINITY, DType::f32) == "inf");
  CHECK(format_float(NAN, DType::f32) == "nan");
}

TEST_CASE("arrays print as numpy's str(), rows side by side") {
  using ss::runtime::format_tensor;
  // numpy: str(np.array([[1., 2.], [3., 4.]], dtype=np.float32)) without its newline
  CHECK(format_tensor(Tensor::from_values(DType::f32, {2, 2}, {1, 2, 3, 4})) ==
        "[[1. 2.] [3. 4.]]");
  CHECK(format_tensor(Tensor::from_values(DType::f32, {2}, {1, 2.5})) == "[1.  2.5]");
  CHECK(format_tensor(Tensor::from_values(DType::f32, {3}, {2, 11, -0.5})) == "[ 2.  11.  -0.5]");
  CHECK(format_tensor(Tensor::from_values(DType::i32, {3}, {1, 10, -3})) == "[ 1 10 -3]");
  CHECK(format_tensor(Tensor::from_values(DType::boolean, {2}, {1, 0})) == "[ True False]");
  CHECK(format_tensor(Tensor::scalar(DType::f32, 2)) == "2.0");
  CHECK(format_tensor(Tensor::scalar(DType::i32, 7)) == "7");
  CHECK(format_tensor(Tensor::zeros(DType::f32, {0})) == "[]");
  CHECK(format_tensor(Tensor::from_values(DType::f32, {2, 1, 2}, {1, 2, 3, 4})) ==
        "[[[1. 2.]] [[3. 4.]]]");
}

namespace {
ss::support::Number F(double x) {
  return ss::support::Number::of_float(x);
}
ss::support::Number I(std::int64_t x) {
  return ss::support::Number::of_int(x);
}
}  // namespace

TEST_CASE("f-string formats follow Python's [width][.precision][type]") {
  std::string out;
  CHECK(ss::runtime::format_number(F(0.123456), ".4f", &out));
  CHECK(out == "0.1235");
  CHECK(ss::runtime::format_number(I(3), "d", &out));
  CHECK(out == "3");
  CHECK(ss::runtime::format_number(I(3), "4d", &out));
  CHECK(out == "   3");
  CHECK(ss::runtime::format_number(F(12345.678), ".2e", &out));
  CHECK(out == "1.23e+04");
  CHECK(ss::runtime::format_number(F(0.25), ".1%", &out));
  CHECK(out == "25.0%");
  CHECK(ss::runtime::format_number(F(0.5), "", &out));
  CHECK(out == "0.5");
  CHECK_FALSE(ss::runtime::format_number(F(1), ".2q", &out));
  CHECK_FALSE(ss::runtime::format_number(F(1), "x", &out));
  // Ints show exactly, past 2^53 too; with a width and no type, as `d`
  // (Python: f"{2**53 + 1:d}", f"{1234567:9}").
  CHECK(ss::runtime::format_number(I(9007199254740993), "d", &out));
  CHECK(out == "9007199254740993");
  CHECK(ss::runtime::format_number(I(1234567), "9", &out));
  CHECK(out == "  1234567");
  CHECK(ss::runtime::format_number(I(-9223372036854775807 - 1), "", &out));
  CHECK(out == "-9223372036854775808");
  CHECK(ss::runtime::format_number(I(7), ".2f", &out));
  CHECK(out == "7.00");
}
