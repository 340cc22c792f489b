// The operations differentiation adds (ir/autodiff.hpp): each one the
// reverse of a forward operation, in plain loops.
#include "runtime/reference/ops.hpp"

namespace ss::runtime::reference {

Tensor scatter_add(const Tensor& values, const Tensor& ids, const Shape& table_shape) {
  if (table_shape.empty()) throw InternalError("scatter_add into a scalar");
  Tensor out = Tensor::zeros(values.dtype(), table_shape);
  const std::int64_t rows = table_shape[0];
  const std::int64_t row = out.size() / (rows == 0 ? 1 : rows);
  if (values.size() != ids.size() * row) throw InternalError("scatter_add: values don't fit ids");
  for (std::int64_t i = 0; i < ids.size(); ++i) {
    const auto id = static_cast<std::int64_t>(ids.get(i));
    if (id < 0 || id >= rows) throw RangeError(id, rows, i);
    for (std::int64_t k = 0; k < row; ++k)
      out.set(id * row + k, out.get(id * row + k) + values.get(i * row + k));
  }
  return out;
}

Tensor place(const Tensor& values, const Shape& shape, std::int64_t axis, std::int64_t start,
             std::int64_t end) {
  if (axis < 0 || axis >= static_cast<std::int64_t>(shape.size()))
    throw InternalError("place: axis out of range");
  Tensor out = Tensor::zeros(values.dtype(), shape);
  Tensor region = out.slice(axis, start, end);
  if (region.size() != values.size()) throw InternalError("place: values don't fit the region");
  for (std::int64_t i = 0; i < values.size(); ++i) region.set(i, values.get(i));
  return out;
}

Tensor take_along(const Tensor& x, const Tensor& ids, std::int64_t axis) {
  if (axis < 0 || axis >= x.rank() || ids.shape() != x.shape())
    throw InternalError("take_along: shapes or axis don't fit");
  Tensor out = Tensor::zeros(x.dtype(), x.shape());
  std::int64_t inner = 1;
  for (std::int64_t k = axis + 1; k < x.rank(); ++k) inner *= x.dim(k);
  const std::int64_t size = x.dim(axis);
  for (std::int64_t i = 0, n = x.size(); i < n; ++i) {
    const auto j = static_cast<std::int64_t>(ids.get(i));
    if (j < 0 || j >= size) throw RangeError(j, size, i);
    const std::int64_t at = (i / inner) % size;
    out.set(i, x.get(i + (j - at) * inner));
  }
  return out;
}

}  // namespace ss::runtime::reference
