// How `print` and f-strings show values: numpy's style on one line. Floats
// in the shortest form that reads back to the same value of their dtype;
// arrays in brackets, their rows side by side: [[1. 2.] [3. 4.]].
#pragma once

#include <string>
#include <string_view>

#include "runtime/core/tensor.hpp"
#include "support/scalar_arith.hpp"

namespace ss::runtime {

std::string format_float(double value, DType dtype);  // "0.5", "1.0", "1e-05"
std::string format_tensor(const Tensor& t);           // a scalar alone, an array in brackets

// An f-string's `{x:spec}` of a number: Python's [width][.precision][type]
// with type f, e, g, d or %; an empty spec gives format_float's form. An
// int shows exactly under `d` (or no type), as Python's does. Returns false
// for a spec it doesn't know.
bool format_number(support::Number value, std::string_view spec, std::string* out);

}  // namespace ss::runtime
