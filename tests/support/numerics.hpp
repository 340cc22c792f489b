// The numerics contract's tolerances, read from docs/numerics.md's table:
// every test that compares an executor with the reference (or with a
// golden) names its row, so a tolerance lives in that one table.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/tensor.hpp"

namespace ss::test {

struct Tolerance {
  std::string row;
  double absolute = 0;
  double relative = 0;
  double ulp = 0;             // float32 ulps at the reference's value
  bool tensor_scale = false;  // the scale is the tensor's largest |want|, else each element's
};

// The row named `row` (`fast`, `devices`, ...); throws std::runtime_error
// when the table lacks it or can't be read.
const Tolerance& tolerance(const std::string& row);

// A tensor's scale for a `tensor` row: its largest finite |x|, at least 1.
double tensor_scale(const std::vector<double>& want);

// One float32 ulp at `want`: the gap from |want| (rounded to float32) to
// the next float32 up.
double float_ulp(double want);

// Whether `got` agrees with `want`: equal, both NaN, or within the row's
// bound; `scale` is tensor_scale(want's tensor), read by `tensor` rows.
bool agrees(double got, double want, double scale, const Tolerance& t);

// Checks (with doctest) that `got` has `want`'s shape and every element
// agrees under `row`, naming the first three that don't.
void check_agrees(const runtime::Tensor& got, const runtime::Tensor& want, const std::string& row,
                  const std::string& what);

}  // namespace ss::test
