// The portable numerics' row loops (Numerics::portable): exp, log, tanh
// and erf of a row (support/portable_math.hpp), and a row's exps and their
// sum, built once per instruction set (portable_rows_avx512.cpp, _avx2,
// _scalar) and chosen by runtime::kernel_isa(). Every one gives the same
// bits on every path: a function is the same operations in every lane, and
// a sum of n floats runs in sixteen lanes (element i in lane i % 16, each
// lane in order), the lanes then added as ((l + l+8) for l < 8) and those
// eight as vector_exp.hpp's add_lanes, at any width.
#pragma once

#include <cstdint>

namespace ss::runtime::fast::portable {

enum class Function { exp, log, tanh, erf, sin, cos, tan, asin, acos, atan };

// out[i] = f(in[i]) for i < n (out may be in).
void map(Function f, const float* in, float* out, std::int64_t n);

// out[i] = exp(in[i] - shift) for i < n (out may be in), and their sum in
// the sixteen lanes' order.
float exp_sum(const float* in, float shift, float* out, std::int64_t n);

// One value's function: the scalar path's, the same bits.
float exp(float x);
float log(float x);

// Each path's entry points, for the test that holds them to one another's
// bits; the paths this CPU can't run are null.
struct Path {
  const char* name;
  void (*map)(Function, const float*, float*, std::int64_t);
  float (*exp_sum)(const float*, float, float*, std::int64_t);
};
Path path_avx512();
Path path_avx2();
Path path_scalar();

}  // namespace ss::runtime::fast::portable
