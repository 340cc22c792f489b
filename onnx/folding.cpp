#include "onnx/folding.hpp"

#include <algorithm>

namespace ss::onnx_import {

std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

Constant gather_flat(const Constant& c, const std::vector<std::int64_t>& shape,
                     const std::function<std::int64_t(const std::vector<std::int64_t>&)>& source) {
  Constant out;
  out.onnx_type = c.onnx_type;
  out.shape = shape;
  const std::int64_t n = out.count();
  std::vector<std::int64_t> index(shape.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto from = static_cast<std::size_t>(source(index));
    if (c.is_float())
      out.floats.push_back(c.floats[from]);
    else
      out.ints.push_back(c.ints[from]);
    for (std::size_t a = shape.size(); a-- > 0;) {
      if (++index[a] < shape[a]) break;
      index[a] = 0;
    }
  }
  return out;
}

std::vector<std::int64_t> broadcast_shape(const std::vector<std::int64_t>& a,
                                          const std::vector<std::int64_t>& b, bool* ok) {
  const std::size_t r = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(r);
  *ok = true;
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t x = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const std::int64_t y = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (x != y && x != 1 && y != 1) *ok = false;
    out[i] = x == 1 ? y : x;
  }
  return out;
}

Constant broadcast_ints(const Constant& a, const Constant& b, int type,
                        const std::function<std::int64_t(std::int64_t, std::int64_t)>& f) {
  bool ok = true;
  Constant out;
  out.onnx_type = type;
  out.shape = broadcast_shape(a.shape, b.shape, &ok);
  const auto sa = strides_of(a.shape), sb = strides_of(b.shape);
  const std::size_t r = out.shape.size();
  std::vector<std::int64_t> index(r, 0);
  for (std::int64_t i = 0; i < out.count(); ++i) {
    std::int64_t ia = 0, ib = 0;
    for (std::size_t k = 0; k < r; ++k) {
      if (k >= r - a.shape.size() && a.shape[k - (r - a.shape.size())] != 1)
        ia += index[k] * sa[k - (r - a.shape.size())];
      if (k >= r - b.shape.size() && b.shape[k - (r - b.shape.size())] != 1)
        ib += index[k] * sb[k - (r - b.shape.size())];
    }
    out.ints.push_back(
        f(a.ints[static_cast<std::size_t>(ia)], b.ints[static_cast<std::size_t>(ib)]));
    for (std::size_t k = r; k-- > 0;) {
      if (++index[k] < out.shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

}  // namespace ss::onnx_import
