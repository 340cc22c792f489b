// Constants computed at import: the shape subgraphs (Shape, Gather,
// Concat, Unsqueeze, Slice, integer arithmetic...) fold away, so their
// results are numbers in the program, not tensors it computes.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "onnx/tensors.hpp"

namespace ss::onnx_import {

// Row-major strides of a shape.
std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& shape);
// A constant of `shape` whose element i is c's element source(i) (a flat index).
Constant gather_flat(const Constant& c, const std::vector<std::int64_t>& shape,
                     const std::function<std::int64_t(const std::vector<std::int64_t>&)>& source);
// numpy's broadcast of two integer constants through f, the result of `type`.
Constant broadcast_ints(const Constant& a, const Constant& b, int type,
                        const std::function<std::int64_t(std::int64_t, std::int64_t)>& f);
// numpy's broadcast shape, or empty with ok false.
std::vector<std::int64_t> broadcast_shape(const std::vector<std::int64_t>& a,
                                          const std::vector<std::int64_t>& b, bool* ok);

}  // namespace ss::onnx_import
