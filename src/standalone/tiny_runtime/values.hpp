// The tiny runtime a standalone build (`shapescript build --standalone`)
// puts at the top of the C++ source it writes: the reference runtime's
// operations, plainly, on values held as doubles rounded to their element
// type, so the generated functions give the library's results within
// float32 rounding with nothing but the C++ standard library. Its four
// parts (this one first: values, broadcasting, elementwise functions) are
// embedded in the library as one text, in order (src/CMakeLists.txt), and
// compiled by the tests in every source they build, so they stay valid C++17.
#ifndef SS_STANDALONE_RUNTIME
#define SS_STANDALONE_RUNTIME

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ssa {

enum DType { F32 = 0, I32 = 3, BOOL = 4 };  // the library's numbering
using Shape = std::vector<std::int64_t>;

struct Tensor {
  DType dtype = F32;
  Shape shape;
  std::vector<double> v;  // row-major, each element as its dtype holds it
  std::int64_t size() const { return static_cast<std::int64_t>(v.size()); }
};

inline std::int64_t count(const Shape& s) {
  std::int64_t n = 1;
  for (const auto d : s) n *= d;
  return n;
}

// A value as the dtype stores it: floats rounded to float, ints truncated
// toward zero and saturated (NaN gives 0), bools 0 or 1.
inline double store(DType t, double x) {
  if (t == F32) return static_cast<double>(static_cast<float>(x));
  if (t == BOOL) return x != 0 ? 1.0 : 0.0;
  if (x != x) return 0;
  return std::trunc(std::max(-2147483648.0, std::min(2147483647.0, x)));
}

inline Tensor make(DType t, Shape s) {
  Tensor r;
  r.dtype = t;
  r.v.assign(static_cast<std::size_t>(count(s)), 0.0);
  r.shape = std::move(s);
  return r;
}
inline Tensor fill(DType t, Shape s, double value) {
  Tensor r = make(t, std::move(s));
  std::fill(r.v.begin(), r.v.end(), store(t, value));
  return r;
}
inline Tensor of(DType t, Shape s, const std::vector<double>& values) {
  Tensor r = make(t, std::move(s));
  for (std::size_t i = 0; i < r.v.size() && i < values.size(); ++i) r.v[i] = store(t, values[i]);
  return r;
}
inline Tensor arange(std::int64_t n) {
  Tensor r = make(I32, {n});
  for (std::int64_t i = 0; i < n; ++i) r.v[static_cast<std::size_t>(i)] = static_cast<double>(i);
  return r;
}
inline Tensor cast(const Tensor& x, DType t) {
  if (x.dtype == t) return x;
  Tensor r = x;
  r.dtype = t;
  for (auto& e : r.v) e = store(t, e);
  return r;
}
inline bool is_float(DType t) {
  return t == F32;
}

// ---- broadcasting ----
inline Shape broadcast_shape(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1;
    const std::int64_t y = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (x != y && x != 1 && y != 1) throw std::invalid_argument("shapes don't broadcast");
    out[out.size() - 1 - k] = x == 1 ? y : x;
  }
  return out;
}
// The offset in `t` of each element of `out`, broadcast.
inline std::vector<std::int64_t> offsets(const Tensor& t, const Shape& out) {
  std::vector<std::int64_t> strides(out.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t k = 0; k < t.shape.size(); ++k) {
    const std::size_t from_end = t.shape.size() - 1 - k;
    if (t.shape[from_end] != 1) strides[out.size() - 1 - k] = stride;
    stride *= t.shape[from_end];
  }
  std::vector<std::int64_t> at(static_cast<std::size_t>(count(out)));
  std::vector<std::int64_t> index(out.size(), 0);
  std::int64_t offset = 0;
  for (auto& a : at) {
    a = offset;
    for (std::size_t d = out.size(); d-- > 0;) {
      ++index[d];
      offset += strides[d];
      if (index[d] < out[d]) break;
      offset -= strides[d] * index[d];
      index[d] = 0;
    }
  }
  return at;
}

// ---- elementwise ----
// The library's elementwise functions (src/types/unary.def and binary.def),
// which the generated file writes above this runtime: enum Unary,
// unary_result, unary_formula; enum Binary, binary_result, binary_formula.
inline double unary_of(int op, double x) {
  return unary_formula(op, x);
}
inline DType common(DType a, DType b) {
  if (a == b) return a;
  if (is_float(a) != is_float(b)) return is_float(a) ? a : b;
  return is_float(a) ? F32 : I32;
}

inline Tensor unary(int op, const Tensor& x) {
  const int result = unary_result(op);
  const DType t = result == 2 ? BOOL : result == 0 || is_float(x.dtype) ? x.dtype : F32;
  Tensor r = make(t, x.shape);
  for (std::size_t i = 0; i < r.v.size(); ++i) r.v[i] = store(t, unary_of(op, x.v[i]));
  return r;
}
inline Tensor binary(int op, const Tensor& a, const Tensor& b) {
  const bool integers = !is_float(a.dtype) && !is_float(b.dtype);
  const int result = binary_result(op);
  const DType t = result == 2 ? BOOL : result == 1 && integers ? F32 : common(a.dtype, b.dtype);
  Tensor r = make(t, broadcast_shape(a.shape, b.shape));
  const auto ia = offsets(a, r.shape), ib = offsets(b, r.shape);
  for (std::size_t i = 0; i < r.v.size(); ++i)
    r.v[i] = store(t, binary_formula(op, a.v[static_cast<std::size_t>(ia[i])],
                                     b.v[static_cast<std::size_t>(ib[i])], integers));
  return r;
}
inline Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) {
  Tensor r =
      make(common(a.dtype, b.dtype), broadcast_shape(c.shape, broadcast_shape(a.shape, b.shape)));
  const auto ic = offsets(c, r.shape), ia = offsets(a, r.shape), ib = offsets(b, r.shape);
  for (std::size_t i = 0; i < r.v.size(); ++i)
    r.v[i] = store(r.dtype, c.v[static_cast<std::size_t>(ic[i])] != 0
                                ? a.v[static_cast<std::size_t>(ia[i])]
                                : b.v[static_cast<std::size_t>(ib[i])]);
  return r;
}
