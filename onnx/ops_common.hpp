// What the op handlers (ops_*.cpp) share: axis arithmetic and the
// shapescript spellings of reshapes, transposes and slices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/translator.hpp"

namespace ss::onnx_import {

// An ONNX axis (negative counts from the end) as a position in 0..rank-1;
// E2005 when it is out of range.
std::int64_t axis_of(const Translator& t, std::int64_t axis, std::size_t rank);
// Pattern names for `rank` axes: "a0 a1 a2".
std::vector<std::string> axis_names(std::size_t rank, const std::string& prefix = "a");
std::string join(const std::vector<std::string>& parts, const std::string& sep = " ");
// `over=` text for axes: "1", "[0 2]".
std::string over_text(const std::vector<std::int64_t>& axes);

// Two sizes that agree: equal, or either a generic axis (-1).
inline bool sizes_fit(std::int64_t a, std::int64_t b) {
  return a == b || a < 0 || b < 0;
}

// `x` (of `from`) laid out as `to` (the same count, row-major order kept).
std::string reshape_expr(Translator& t, const std::string& x, const std::vector<std::int64_t>& from,
                         const std::vector<std::int64_t>& to, const std::string& dtype);
// `x` with its axes permuted: axis i of the result is axis perm[i] of x.
std::string transpose_expr(const std::string& x, const std::vector<std::int64_t>& perm);
// `x` (of `shape`) sliced along `axis` from `start` to `end` (0 <= start <
// end <= size), every `step`-th element (step >= 1).
std::string slice_expr(Translator& t, const std::string& x, const std::vector<std::int64_t>& shape,
                       std::size_t axis, std::int64_t start, std::int64_t end, std::int64_t step,
                       const std::string& dtype);
// `x` (of `shape`) broadcast to `to` (numpy's rules; to has at least x's rank).
std::string expand_expr(const std::string& x, const std::vector<std::int64_t>& shape,
                        const std::vector<std::int64_t>& to);

// `x` (of `shape`) gathered along `axis` at constant positions (0 <= id <
// size): the axis's size becomes ids.size(). A reversal, a reflection, a
// resize's taps.
std::string gather_axis(Translator& t, const std::string& x, const std::vector<std::int64_t>& shape,
                        const std::string& dtype, std::size_t axis,
                        const std::vector<std::int64_t>& ids);
// The same at positions an expression gives (a 1-d integer or Index value).
std::string gather_axis_by(Translator& t, const std::string& x,
                           const std::vector<std::int64_t>& shape, const std::string& dtype,
                           std::size_t axis, const std::string& ids);
// A float constant written into the program (never a parameter), of
// `shape`: a resize's weights, say.
std::string frozen_floats(Translator& t, const std::vector<double>& values,
                          const std::vector<std::int64_t>& shape, const std::string& dtype);

// An integer constant, and a constant as a value (no expression: written
// into the program where an operation reads it).
Constant ints_constant(std::vector<std::int64_t> values, std::vector<std::int64_t> shape,
                       int onnx_type = onnx::TensorProto::INT64);
Value value_of(Constant c);

// A constant's integers (a shape, axes, indices), E2007 when the input
// isn't a constant at import.
std::vector<std::int64_t> constant_ints(const Translator& t, int input, const char* what);

}  // namespace ss::onnx_import
