// Operations that move elements between axes: einops patterns, einsum,
// sorting, normalisation along an axis, joins, pads, slices and windows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "runtime/reference/ops.hpp"

namespace ss::runtime::reference {
namespace {

// Calls f(index) for every multi-index of `shape`, last axis fastest.
template <typename F>
void for_each_index(const Shape& shape, F f) {
  std::vector<std::int64_t> index(shape.size(), 0);
  const std::int64_t n = element_count(shape);
  for (std::int64_t flat = 0; flat < n; ++flat) {
    f(index);
    for (std::size_t k = shape.size(); k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
}

std::int64_t flat_of(const std::vector<std::int64_t>& index, const Shape& shape) {
  std::int64_t flat = 0;
  for (std::size_t k = 0; k < shape.size(); ++k) flat = flat * shape[k] + index[k];
  return flat;
}

// Moves `axis` last: returns (outer, size, inner) so element (o, i, k) is at
// (o * size + i) * inner + k.
struct AxisView {
  std::int64_t outer, size, inner;
  AxisView(const Tensor& x, std::int64_t axis) : outer(1), size(x.dim(axis)), inner(1) {
    for (std::int64_t k = 0; k < axis; ++k) outer *= x.dim(k);
    for (std::int64_t k = axis + 1; k < x.rank(); ++k) inner *= x.dim(k);
  }
  std::int64_t at(std::int64_t o, std::int64_t i, std::int64_t k) const {
    return (o * size + i) * inner + k;
  }
};

void check_axis(const Tensor& x, std::int64_t axis) {
  if (axis < 0 || axis >= x.rank())
    throw InternalError("axis " + std::to_string(axis) + " out of range");
}

}  // namespace

Tensor einops(const Tensor& x, const std::vector<std::string>& in,
              const std::vector<std::vector<std::string>>& out,
              const std::map<std::string, std::int64_t>& sizes, std::optional<Reduce> op) {
  const auto size = [&](const std::string& name) { return name.empty() ? 1 : sizes.at(name); };
  Shape in_shape;
  for (const auto& n : in) in_shape.push_back(size(n));
  if (element_count(in_shape) != x.size())
    throw InternalError("einops: the pattern's sizes don't cover the input");
  std::vector<std::string> out_names;
  Shape out_shape, out_elementary;
  for (const auto& group : out) {
    std::int64_t n = 1;
    for (const auto& name : group) {
      out_names.push_back(name);
      out_elementary.push_back(size(name));
      n *= size(name);
    }
    out_shape.push_back(n);
  }
  std::vector<std::string> reduced;
  Shape reduced_shape;
  for (const auto& n : in)
    if (!n.empty() && std::find(out_names.begin(), out_names.end(), n) == out_names.end()) {
      reduced.push_back(n);
      reduced_shape.push_back(size(n));
    }
  const DType dtype = op == Reduce::mean && !is_float(x.dtype()) ? DType::f32 : x.dtype();
  Tensor result = Tensor::zeros(dtype, out_shape);
  std::map<std::string, std::int64_t> at;
  std::vector<std::int64_t> in_index(in.size());
  const auto input_flat = [&] {
    for (std::size_t k = 0; k < in.size(); ++k) in_index[k] = in[k].empty() ? 0 : at[in[k]];
    return flat_of(in_index, in_shape);
  };
  for_each_index(out_elementary, [&](const std::vector<std::int64_t>& o) {
    for (std::size_t k = 0; k < out_names.size(); ++k) at[out_names[k]] = o[k];
    double acc = op == Reduce::max   ? -std::numeric_limits<double>::infinity()
                 : op == Reduce::min ? std::numeric_limits<double>::infinity()
                                     : 0.0;
    for_each_index(reduced_shape, [&](const std::vector<std::int64_t>& r) {
      for (std::size_t k = 0; k < reduced.size(); ++k) at[reduced[k]] = r[k];
      const double v = x.get(input_flat());
      if (op == Reduce::max)
        acc = std::max(acc, v);
      else if (op == Reduce::min)
        acc = std::min(acc, v);
      else
        acc += v;
    });
    if (op == Reduce::mean) acc /= static_cast<double>(element_count(reduced_shape));
    result.set(flat_of(o, out_elementary), acc);
  });
  return result;
}

Tensor einsum(const std::vector<Tensor>& xs, const std::vector<std::vector<std::string>>& in,
              const std::vector<std::string>& out) {
  // Every name once, the output's first: an odometer over all of them
  // visits each product once, adding it into its output element.
  std::vector<std::string> names = out;
  std::vector<std::int64_t> sizes(out.size(), -1);
  for (std::size_t t = 0; t < xs.size(); ++t)
    for (std::size_t k = 0; k < in[t].size(); ++k) {
      const auto at = std::find(names.begin(), names.end(), in[t][k]);
      const std::int64_t size = xs[t].dim(static_cast<std::int64_t>(k));
      if (at == names.end()) {
        names.push_back(in[t][k]);
        sizes.push_back(size);
      } else {
        sizes[static_cast<std::size_t>(at - names.begin())] = size;
      }
    }
  Shape out_shape(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(out.size()));
  for (const auto d : out_shape)
    if (d < 0) throw InternalError("einsum: an output name no input has");
  // Each name's step in each input's elements and in the output's.
  const std::size_t n = names.size();
  std::vector<std::vector<std::int64_t>> steps(xs.size() + 1, std::vector<std::int64_t>(n, 0));
  for (std::size_t t = 0; t < xs.size(); ++t) {
    const Strides row_major = row_major_strides(xs[t].shape());
    for (std::size_t k = 0; k < in[t].size(); ++k)
      steps[t][static_cast<std::size_t>(std::find(names.begin(), names.end(), in[t][k]) -
                                        names.begin())] += row_major[k];
  }
  const Strides out_strides = row_major_strides(out_shape);
  for (std::size_t k = 0; k < out.size(); ++k) steps[xs.size()][k] = out_strides[k];
  std::vector<std::vector<double>> values;
  for (const auto& x : xs) values.push_back(x.values());
  DType dtype = DType::f32;
  for (const auto& x : xs)
    if (is_float(x.dtype())) dtype = x.dtype();
  std::vector<double> sums(static_cast<std::size_t>(element_count(out_shape)), 0.0);
  // The last name runs in the inner loop; an odometer turns the others.
  if (n == 0) {
    double product = 1;
    for (const auto& v : values) product *= v.at(0);
    sums.at(0) = product;
    return Tensor::from_values(dtype, out_shape, sums);
  }
  const std::size_t last = n - 1, m = xs.size();
  std::int64_t outer = 1;
  for (std::size_t k = 0; k < last; ++k) outer *= sizes[k];
  std::vector<std::int64_t> index(n, 0), offset(m + 1, 0);
  for (std::int64_t step = 0; step < outer; ++step) {
    for (std::int64_t j = 0; j < sizes[last]; ++j) {
      double product = 1;
      for (std::size_t t = 0; t < m; ++t)
        product *= values[t][static_cast<std::size_t>(offset[t] + j * steps[t][last])];
      sums[static_cast<std::size_t>(offset[m] + j * steps[m][last])] += product;
    }
    for (std::size_t k = last; k-- > 0;) {
      for (std::size_t t = 0; t <= m; ++t) offset[t] += steps[t][k];
      if (++index[k] < sizes[k]) break;
      for (std::size_t t = 0; t <= m; ++t) offset[t] -= steps[t][k] * sizes[k];
      index[k] = 0;
    }
  }
  return Tensor::from_values(dtype, out_shape, sums);
}

namespace {

// The stable order that sorts each run along the axis.
template <typename F>
void for_each_run(const Tensor& x, std::int64_t axis, F f) {
  check_axis(x, axis);
  const AxisView v(x, axis);
  std::vector<std::int64_t> order(static_cast<std::size_t>(v.size));
  std::vector<double> run(static_cast<std::size_t>(v.size));
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t k = 0; k < v.inner; ++k) {
      for (std::int64_t i = 0; i < v.size; ++i)
        run[static_cast<std::size_t>(i)] = x.get(v.at(o, i, k));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return run[static_cast<std::size_t>(a)] < run[static_cast<std::size_t>(b)];
      });
      f(v, o, k, order, run);
    }
}

Tensor normalise(const Tensor& x, std::int64_t axis, bool centre, double eps) {
  check_axis(x, axis);
  const AxisView v(x, axis);
  Tensor out = Tensor::zeros(x.dtype(), x.shape());
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t k = 0; k < v.inner; ++k) {
      double mean = 0;
      if (centre) {
        for (std::int64_t i = 0; i < v.size; ++i) mean += x.get(v.at(o, i, k));
        mean /= static_cast<double>(v.size);
      }
      double squares = 0;
      for (std::int64_t i = 0; i < v.size; ++i) squares += std::pow(x.get(v.at(o, i, k)) - mean, 2);
      const double scale = 1.0 / std::sqrt(squares / static_cast<double>(v.size) + eps);
      for (std::int64_t i = 0; i < v.size; ++i)
        out.set(v.at(o, i, k), (x.get(v.at(o, i, k)) - mean) * scale);
    }
  return out;
}

}  // namespace

Tensor sort(const Tensor& x, std::int64_t axis) {
  Tensor out = Tensor::zeros(x.dtype(), x.shape());
  for_each_run(
      x, axis,
      [&](const AxisView& v, std::int64_t o, std::int64_t k, const auto& order, const auto& run) {
        for (std::int64_t i = 0; i < v.size; ++i)
          out.set(v.at(o, i, k), run[static_cast<std::size_t>(order[i])]);
      });
  return out;
}

Tensor argsort(const Tensor& x, std::int64_t axis) {
  Tensor out = Tensor::zeros(DType::i32, x.shape());
  for_each_run(
      x, axis,
      [&](const AxisView& v, std::int64_t o, std::int64_t k, const auto& order, const auto&) {
        for (std::int64_t i = 0; i < v.size; ++i)
          out.set(v.at(o, i, k), static_cast<double>(order[i]));
      });
  return out;
}

Tensor layer_norm(const Tensor& x, std::int64_t axis, double eps) {
  return normalise(x, axis, true, eps);
}
Tensor rms_norm(const Tensor& x, std::int64_t axis, double eps) {
  return normalise(x, axis, false, eps);
}

Tensor concat(const std::vector<Tensor>& xs, std::int64_t axis) {
  if (xs.empty()) throw InternalError("concat of nothing");
  check_axis(xs[0], axis);
  Shape shape = xs[0].shape();
  shape[static_cast<std::size_t>(axis)] = 0;
  for (const auto& x : xs) shape[static_cast<std::size_t>(axis)] += x.dim(axis);
  Tensor out = Tensor::zeros(xs[0].dtype(), shape);
  const AxisView target(out, axis);
  std::int64_t offset = 0;
  for (const auto& x : xs) {
    const AxisView v(x, axis);
    for (std::int64_t o = 0; o < v.outer; ++o)
      for (std::int64_t i = 0; i < v.size; ++i)
        for (std::int64_t k = 0; k < v.inner; ++k)
          out.set(target.at(o, offset + i, k), x.get(v.at(o, i, k)));
    offset += v.size;
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& xs) {
  if (xs.empty()) throw InternalError("stack of nothing");
  Shape shape = xs[0].shape();
  shape.insert(shape.begin(), static_cast<std::int64_t>(xs.size()));
  Tensor out = Tensor::zeros(xs[0].dtype(), shape);
  for (std::size_t t = 0; t < xs.size(); ++t)
    for (std::int64_t i = 0; i < xs[t].size(); ++i)
      out.set(static_cast<std::int64_t>(t) * xs[0].size() + i, xs[t].get(i));
  return out;
}

Tensor pad(const Tensor& x, std::int64_t axis, std::int64_t before, std::int64_t after,
           double value) {
  check_axis(x, axis);
  Shape shape = x.shape();
  shape[static_cast<std::size_t>(axis)] += before + after;
  Tensor out = Tensor::zeros(x.dtype(), shape);
  for (std::int64_t i = 0, n = out.size(); i < n; ++i) out.set(i, value);
  const AxisView v(x, axis), target(out, axis);
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t i = 0; i < v.size; ++i)
      for (std::int64_t k = 0; k < v.inner; ++k)
        out.set(target.at(o, before + i, k), x.get(v.at(o, i, k)));
  return out;
}

Tensor slice(const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t end) {
  check_axis(x, axis);
  if (start < 0 || end > x.dim(axis) || start > end)
    throw InternalError("slice bounds outside the axis");
  return x.slice(axis, start, end);  // a view: no copy
}

namespace {

// Where each element of `w`'s windows of a tensor of `shape` comes from:
// its flat index there, or -1 for the padding.
std::int64_t window_source(const Shape& shape, const ir::Window& w,
                           const std::vector<std::int64_t>& index) {
  std::vector<std::int64_t> at(index.begin(),
                               index.begin() + static_cast<std::ptrdiff_t>(shape.size()));
  for (std::size_t k = 0; k < w.axes.size(); ++k) {
    const auto& a = w.axes[k];
    const auto axis = static_cast<std::size_t>(a.axis);
    const std::int64_t p = a.position(index[axis], index[shape.size() + k]);
    if (p < 0 || p >= shape[axis]) return -1;
    at[axis] = p;
  }
  return flat_of(at, shape);
}

void check_window(const Shape& shape, const ir::Window& w) {
  if (!w.valid(static_cast<std::int64_t>(shape.size())))
    throw InternalError("a window that doesn't fit its input's axes");
}

}  // namespace

Tensor window(const Tensor& x, const ir::Window& w) {
  check_window(x.shape(), w);
  const Shape windowed = w.shape_of(x.shape());
  Tensor out = Tensor::zeros(x.dtype(), windowed);
  std::int64_t flat = 0;
  for_each_index(windowed, [&](const std::vector<std::int64_t>& index) {
    const std::int64_t from = window_source(x.shape(), w, index);
    out.set(flat++, from < 0 ? w.value : x.get(from));
  });
  return out;
}

Tensor window_fold(const Tensor& values, const Shape& like, const ir::Window& w) {
  check_window(like, w);
  if (values.shape() != w.shape_of(like))
    throw InternalError("window_fold's values aren't its window's shape");
  Tensor out = Tensor::zeros(values.dtype(), like);
  std::int64_t flat = 0;
  for_each_index(values.shape(), [&](const std::vector<std::int64_t>& index) {
    const std::int64_t to = window_source(like, w, index);
    if (to >= 0) out.set(to, out.get(to) + values.get(flat));
    ++flat;
  });
  return out;
}

}  // namespace ss::runtime::reference
