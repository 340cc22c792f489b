// Losses, masks and gathers.
#include <cmath>
#include <limits>

#include "runtime/reference/ops.hpp"

namespace ss::runtime::reference {

Tensor cross_entropy(const Tensor& logits, const Tensor& labels, std::int64_t axis, bool sum) {
  if (axis < 0 || axis >= logits.rank()) throw InternalError("cross_entropy axis out of range");
  const Tensor log_p = log_softmax(logits, axis);
  const Shape& shape = logits.shape();
  const std::int64_t classes = shape[static_cast<std::size_t>(axis)];
  std::int64_t inner = 1;
  for (std::size_t k = static_cast<std::size_t>(axis) + 1; k < shape.size(); ++k) inner *= shape[k];
  const std::int64_t outer = logits.size() / (classes * inner);
  if (labels.size() != outer * inner) throw InternalError("cross_entropy labels of the wrong size");
  double total = 0;
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      const std::int64_t position = o * inner + i;
      const auto label = static_cast<std::int64_t>(labels.get(position));
      if (label < 0 || label >= classes) throw RangeError(label, classes, position);
      total -= log_p.get((o * classes + label) * inner + i);
    }
  }
  if (sum) return Tensor::scalar(DType::f32, total);
  return Tensor::scalar(DType::f32, total / static_cast<double>(outer * inner));
}

Tensor causal(const Tensor& x) {
  if (x.rank() < 2) throw InternalError("causal needs two axes");
  const std::int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
  Tensor out = cast(x, x.dtype());
  for (std::int64_t flat = 0, n = x.size(); flat < n; ++flat) {
    const std::int64_t j = flat % cols, i = (flat / cols) % rows;
    if (j > i) out.set(flat, -std::numeric_limits<double>::infinity());
  }
  return out;
}

Tensor gather(const Tensor& table, const Tensor& ids) {
  if (table.rank() < 1) throw InternalError("gather from a scalar");
  const std::int64_t rows = table.dim(0);
  const std::int64_t row = table.size() / (rows == 0 ? 1 : rows);
  Shape shape = ids.shape();
  shape.insert(shape.end(), table.shape().begin() + 1, table.shape().end());
  Tensor out = Tensor::zeros(table.dtype(), shape);
  for (std::int64_t i = 0; i < ids.size(); ++i) {
    const auto id = static_cast<std::int64_t>(ids.get(i));
    if (id < 0 || id >= rows) throw RangeError(id, rows, i);
    for (std::int64_t k = 0; k < row; ++k) out.set(i * row + k, table.get(id * row + k));
  }
  return out;
}

Tensor take(const Tensor& x, std::int64_t axis, std::int64_t index) {
  if (axis < 0 || axis >= x.rank()) throw InternalError("take: axis out of range");
  const std::int64_t size = x.dim(axis);
  const std::int64_t i = index < 0 ? index + size : index;
  if (i < 0 || i >= size) throw RangeError(index, size, 0);
  return x.select(axis, i);  // a view: no copy
}

}  // namespace ss::runtime::reference
