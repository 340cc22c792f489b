// Reductions over axes, argmax, and matmul (a contraction over one axis).
#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/reference/ops.hpp"

namespace ss::runtime::reference {
namespace {

// Splits x's axes into kept and reduced ones; calls f(kept_flat, values)
// for each kept position with the reduced elements in row-major order.
template <typename F>
void for_each_group(const Tensor& x, const std::vector<bool>& reduced, F f) {
  const Shape& shape = x.shape();
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;) strides[k - 1] = strides[k] * shape[k];
  Shape kept_shape, group_shape;
  std::vector<std::int64_t> kept_strides, group_strides;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    (reduced[k] ? group_shape : kept_shape).push_back(shape[k]);
    (reduced[k] ? group_strides : kept_strides).push_back(strides[k]);
  }
  const auto offset_of = [](std::int64_t flat, const Shape& s,
                            const std::vector<std::int64_t>& st) {
    std::int64_t offset = 0;
    for (std::size_t k = s.size(); k-- > 0;) {
      offset += (flat % s[k]) * st[k];
      flat /= s[k];
    }
    return offset;
  };
  const std::int64_t kept = element_count(kept_shape), group = element_count(group_shape);
  std::vector<double> values(static_cast<std::size_t>(group));
  for (std::int64_t i = 0; i < kept; ++i) {
    const std::int64_t base = offset_of(i, kept_shape, kept_strides);
    for (std::int64_t j = 0; j < group; ++j)
      values[static_cast<std::size_t>(j)] = x.get(base + offset_of(j, group_shape, group_strides));
    f(i, values);
  }
}

Shape reduced_shape(const Shape& shape, const std::vector<bool>& reduced, bool keep) {
  Shape out;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (!reduced[k])
      out.push_back(shape[k]);
    else if (keep)
      out.push_back(1);
  }
  return out;
}

std::vector<bool> mark(std::int64_t rank, const std::vector<std::int64_t>& axes) {
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (const auto a : axes) {
    if (a < 0 || a >= rank) throw InternalError("axis " + std::to_string(a) + " out of range");
    reduced[static_cast<std::size_t>(a)] = true;
  }
  return reduced;
}

double logsumexp_of(const std::vector<double>& v) {
  double peak = -std::numeric_limits<double>::infinity();
  for (const double x : v) peak = std::max(peak, x);
  if (!std::isfinite(peak)) return peak;  // all -inf (or an inf/NaN): that's the answer
  double sum = 0;
  for (const double x : v) sum += std::exp(x - peak);
  return peak + std::log(sum);
}

}  // namespace

Tensor reduce(Reduce op, const Tensor& x, const std::vector<std::int64_t>& axes, bool keep) {
  const auto reduced = mark(x.rank(), axes);
  DType dtype = x.dtype();
  const bool needs_float =
      op == Reduce::mean || op == Reduce::logsumexp || op == Reduce::var || op == Reduce::std;
  if ((needs_float && !is_float(dtype)) || (op == Reduce::sum && dtype == DType::boolean))
    dtype = DType::f32;
  Tensor out = Tensor::zeros(dtype, reduced_shape(x.shape(), reduced, keep));
  for_each_group(x, reduced, [&](std::int64_t i, const std::vector<double>& v) {
    const double n = static_cast<double>(v.size());
    double sum = 0;
    for (const double e : v) sum += e;
    double result = 0;
    switch (op) {
      case Reduce::sum:
        result = sum;
        break;
      case Reduce::mean:
        result = sum / n;
        break;
      case Reduce::max:
        result = *std::max_element(v.begin(), v.end());
        break;
      case Reduce::min:
        result = *std::min_element(v.begin(), v.end());
        break;
      case Reduce::logsumexp:
        result = logsumexp_of(v);
        break;
      case Reduce::var:
      case Reduce::std: {
        double squares = 0;
        for (const double e : v) squares += (e - sum / n) * (e - sum / n);
        result = op == Reduce::var ? squares / n : std::sqrt(squares / n);
        break;
      }
    }
    out.set(i, result);
  });
  return out;
}

Tensor argmax(const Tensor& x, std::int64_t axis, bool keep) {
  const auto reduced = mark(x.rank(), {axis});
  Tensor out = Tensor::zeros(DType::i32, reduced_shape(x.shape(), reduced, keep));
  for_each_group(x, reduced, [&](std::int64_t i, const std::vector<double>& v) {
    out.set(i, static_cast<double>(std::max_element(v.begin(), v.end()) - v.begin()));
  });
  return out;
}

Tensor softmax(const Tensor& x, std::int64_t axis) {
  const Tensor lse = reduce(Reduce::logsumexp, x, {axis}, true);
  return unary(Unary::exp, binary(Binary::sub, x, lse));
}

Tensor log_softmax(const Tensor& x, std::int64_t axis) {
  return binary(Binary::sub, x, reduce(Reduce::logsumexp, x, {axis}, true));
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (a.rank() < 1 || b.rank() < 1 || a.dim(a.rank() - 1) != b.dim(0))
    throw InternalError("matmul of " + shape_str(a.shape()) + " and " + shape_str(b.shape()));
  const std::int64_t k = b.dim(0);
  // From the shapes, not size / k: a worker's empty part of a contracted
  // batch axis makes k zero.
  std::int64_t rows = 1, cols = 1;
  for (std::int64_t d = 0; d + 1 < a.rank(); ++d) rows *= a.dim(d);
  for (std::int64_t d = 1; d < b.rank(); ++d) cols *= b.dim(d);
  Shape shape(a.shape().begin(), a.shape().end() - 1);
  shape.insert(shape.end(), b.shape().begin() + 1, b.shape().end());
  // In doubles, read once: the sums are the same, each element's p-order.
  const std::vector<double> x = a.values(), y = b.values();
  std::vector<double> sums(static_cast<std::size_t>(rows * cols), 0.0);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t p = 0; p < k; ++p) {
      const double left = x[static_cast<std::size_t>(i * k + p)];
      double* row = sums.data() + i * cols;
      const double* right = y.data() + p * cols;
      for (std::int64_t j = 0; j < cols; ++j) row[j] += left * right[j];
    }
  return Tensor::from_values(is_float(a.dtype()) ? a.dtype() : DType::f32, shape, sums);
}

}  // namespace ss::runtime::reference
