// Elementwise operations with broadcasting, casts and where.
#include <cmath>
#include <limits>

#include "ir/formulas.hpp"
#include "runtime/reference/ops.hpp"
#include "types/binary_functions.hpp"

namespace ss::runtime::reference {
namespace {

// Row-major strides of a shape, with 0 for axes that broadcast into `out`.
std::vector<std::int64_t> broadcast_strides(const Shape& shape, const Shape& out) {
  std::vector<std::int64_t> strides(out.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    const std::size_t from_end = shape.size() - 1 - k;
    const std::size_t out_axis = out.size() - 1 - k;
    if (shape[from_end] != 1) strides[out_axis] = stride;
    stride *= shape[from_end];
  }
  return strides;
}

// Calls f(out_index, offsets...) for every element of `out`, with each
// input's element offset under broadcasting.
template <typename F>
void for_each_broadcast(const Shape& out, const std::vector<const Tensor*>& inputs, F f) {
  std::vector<std::vector<std::int64_t>> strides;
  for (const Tensor* t : inputs) strides.push_back(broadcast_strides(t->shape(), out));
  std::vector<std::int64_t> index(out.size(), 0);
  std::vector<std::int64_t> offsets(inputs.size(), 0);
  const std::int64_t n = element_count(out);
  for (std::int64_t flat = 0; flat < n; ++flat) {
    f(flat, offsets);
    // Advance the multi-index like an odometer, keeping the offsets in step.
    for (std::size_t axis = out.size(); axis-- > 0;) {
      ++index[axis];
      for (std::size_t t = 0; t < inputs.size(); ++t) offsets[t] += strides[t][axis];
      if (index[axis] < out[axis]) break;
      for (std::size_t t = 0; t < inputs.size(); ++t) offsets[t] -= strides[t][axis] * index[axis];
      index[axis] = 0;
    }
  }
}

DType arithmetic_dtype(DType a, DType b) {
  if (a == b) return a;
  if (is_float(a) && !is_float(b)) return a;
  if (is_float(b) && !is_float(a)) return b;
  if (is_float(a) && is_float(b)) return DType::f32;
  return DType::i32;
}

}  // namespace

RangeError::RangeError(std::int64_t v, std::int64_t b, std::int64_t p)
    : std::runtime_error("index " + std::to_string(v) + " is outside 0.." + std::to_string(b - 1) +
                         " at position " + std::to_string(p)),
      value(v),
      bound(b),
      position(p) {}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1;
    const std::int64_t y = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (x != y && x != 1 && y != 1)
      throw InternalError("shapes " + shape_str(a) + " and " + shape_str(b) + " don't broadcast");
    out[out.size() - 1 - k] = x == 1 ? y : x;
  }
  return out;
}

DType unary_dtype(Unary op, DType x) {
  switch (types::unary_functions()[static_cast<std::size_t>(op)].result) {
    case types::UnaryResult::same_type:
      return x;
    case types::UnaryResult::float_type:
      return is_float(x) ? x : DType::f32;
    case types::UnaryResult::bool_type:
      return DType::boolean;
  }
  return x;
}

Tensor unary(Unary op, const Tensor& x) {
  Tensor out = Tensor::zeros(unary_dtype(op, x.dtype()), x.shape());
  const ir::Formula& f = ir::formula(op);
  for (std::int64_t i = 0, n = x.size(); i < n; ++i) out.set(i, ir::evaluate(f, x.get(i)));
  return out;
}

DType binary_dtype(Binary op, DType a, DType b) {
  switch (types::binary_result(static_cast<int>(op))) {
    case types::BinaryResult::comparison:
    case types::BinaryResult::logic:
      return DType::boolean;
    case types::BinaryResult::float_type:
      if (!is_float(a) && !is_float(b)) return DType::f32;
      break;
    case types::BinaryResult::same_type:
      break;
  }
  return arithmetic_dtype(a, b);
}

Tensor binary(Binary op, const Tensor& a, const Tensor& b) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  const bool integers = !is_float(a.dtype()) && !is_float(b.dtype());
  Tensor out = Tensor::zeros(binary_dtype(op, a.dtype(), b.dtype()), shape);
  const ir::Formula& f = ir::formula(op, integers);
  for_each_broadcast(shape, {&a, &b}, [&](std::int64_t i, const std::vector<std::int64_t>& at) {
    out.set(i, ir::evaluate(f, a.get(at[0]), b.get(at[1])));
  });
  return out;
}

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  const Shape shape = broadcast_shapes(condition.shape(), broadcast_shapes(a.shape(), b.shape()));
  Tensor out = Tensor::zeros(arithmetic_dtype(a.dtype(), b.dtype()), shape);
  for_each_broadcast(shape, {&condition, &a, &b},
                     [&](std::int64_t i, const std::vector<std::int64_t>& at) {
                       out.set(i, condition.get(at[0]) != 0 ? a.get(at[1]) : b.get(at[2]));
                     });
  return out;
}

Tensor cast(const Tensor& x, DType to) {
  Tensor out = Tensor::zeros(to, x.shape());
  for (std::int64_t i = 0, n = x.size(); i < n; ++i) out.set(i, x.get(i));
  return out;
}

}  // namespace ss::runtime::reference
