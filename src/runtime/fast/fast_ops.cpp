#include "runtime/fast/fast_ops.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <type_traits>

#include "ir/formulas.hpp"
#include "runtime/core/cpu_isa.hpp"
#include "runtime/fast/fast_loops.hpp"
#include "runtime/fast/vector_exp.hpp"
#include "runtime/reference/ops.hpp"
#include "support/inline_vector.hpp"

namespace ss::runtime::fast {
namespace {

// Element k of a contiguous tensor as a double, whatever its type.
template <typename T>
double at(const void* p, std::int64_t k) {
  return static_cast<double>(static_cast<const T*>(p)[k]);
}

// A reader for a contiguous tensor of the types compare takes.
double (*reader(DType t))(const void*, std::int64_t) {
  switch (t) {
    case DType::f32:
      return &at<float>;
    case DType::i32:
      return &at<std::int32_t>;
    case DType::boolean:
      return &at<unsigned char>;
    default:
      return nullptr;
  }
}

// A contiguous tensor of i32 ids (an Index), or false.
bool ids_of(const Tensor& ids, Tensor& kept) {
  if (ids.dtype() != DType::i32) return false;
  kept = ids.contiguous() ? ids : ids.compact();
  return true;
}

// Calls f(k, offsets) for each element k of `shape` in row-major order, with
// each operand's element offset (its strides, 0 where it broadcasts).
template <typename F>
void each_broadcast(const Shape& shape, std::initializer_list<const Tensor*> operands, F f) {
  const std::size_t rank = shape.size();
  support::InlineVector<Strides, 4> strides;
  for (const Tensor* t : operands) strides.push_back(broadcast_strides(*t, rank));
  Shape index(rank, 0), at(operands.size(), 0);
  for (std::int64_t k = 0, n = element_count(shape); k < n; ++k) {
    f(k, at);
    for (std::size_t d = rank; d-- > 0;) {  // the odometer over the output's axes
      for (std::size_t j = 0; j < at.size(); ++j) at[j] += strides[j][d];
      if (++index[d] < shape[d]) break;
      for (std::size_t j = 0; j < at.size(); ++j) at[j] -= strides[j][d] * shape[d];
      index[d] = 0;
    }
  }
}

// Copies `count` elements of `bytes` each, by element index.
void copy_element(const Tensor& from, std::int64_t at, Tensor& to, std::int64_t k) {
  const std::size_t size = dtype_size(from.dtype());
  std::memcpy(static_cast<char*>(to.raw()) + static_cast<std::size_t>(k) * size,
              static_cast<const char*>(from.raw()) + static_cast<std::size_t>(at) * size, size);
}

}  // namespace

bool fill(DType dtype, const Shape& shape, double value, Tensor& out) {
  out = Tensor::uninitialized(dtype, shape);
  const std::int64_t n = out.size();
  switch (dtype) {
    case DType::f32:
      std::fill_n(static_cast<float*>(out.raw()), n, static_cast<float>(value));
      return true;
    case DType::i32:
      std::fill_n(static_cast<std::int32_t*>(out.raw()), n, static_cast<std::int32_t>(value));
      return true;
    case DType::boolean:
      std::fill_n(static_cast<unsigned char*>(out.raw()), n, value != 0 ? 1 : 0);
      return true;
    default:
      return false;
  }
}

bool arange(std::int64_t n, Tensor& out) {
  out = Tensor::uninitialized(DType::i32, {n});
  auto* p = static_cast<std::int32_t*>(out.raw());
  for (std::int64_t k = 0; k < n; ++k) p[k] = static_cast<std::int32_t>(k);
  return true;
}

namespace {

// Two Index tensors compared (pooling's mask: an arange against an argmax),
// typed: the same answers as the formula's, without a double per element.
// Whether `row` is a rank-1 [G] and `column` a contiguous [..., 1] whose
// rows are `shape`'s rows of G: an arange against an argmax kept (a
// max_pool's mask), every row G comparisons of one value.
bool row_against_column(const Tensor& row, const Tensor& column, const Shape& shape) {
  if (row.rank() != 1 || !row.contiguous() || !column.contiguous() ||
      column.rank() != static_cast<std::int64_t>(shape.size()) || shape.empty() ||
      column.dim(column.rank() - 1) != 1 || row.dim(0) != shape.back())
    return false;
  for (std::size_t d = 0; d + 1 < shape.size(); ++d)
    if (column.dim(static_cast<std::int64_t>(d)) != shape[d]) return false;
  return true;
}

bool compare_i32(ir::Binary op, const std::int32_t* x, const std::int32_t* y, const Tensor& a,
                 const Tensor& b, const Shape& shape, unsigned char* o) {
  const auto run = [&](auto test) {
    if (row_against_column(a, b, shape)) {  // a row of x against each of y's values
      const std::int64_t group = a.dim(0), rows = b.size();
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t g = 0; g < group; ++g) o[r * group + g] = test(x[g], y[r]) ? 1 : 0;
      return true;
    }
    if (row_against_column(b, a, shape)) {
      const std::int64_t group = b.dim(0), rows = a.size();
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t g = 0; g < group; ++g) o[r * group + g] = test(x[r], y[g]) ? 1 : 0;
      return true;
    }
    each_broadcast_row(shape, a, b,
                       [&](std::int64_t k, std::int64_t ia, std::int64_t sa, std::int64_t ib,
                           std::int64_t sb, std::int64_t count) {
                         for (std::int64_t j = 0; j < count; ++j)
                           o[k + j] = test(x[ia + j * sa], y[ib + j * sb]) ? 1 : 0;
                       });
    return true;
  };
  switch (op) {
    case ir::Binary::eq:
      return run([](std::int32_t p, std::int32_t q) { return p == q; });
    case ir::Binary::ne:
      return run([](std::int32_t p, std::int32_t q) { return p != q; });
    case ir::Binary::lt:
      return run([](std::int32_t p, std::int32_t q) { return p < q; });
    case ir::Binary::le:
      return run([](std::int32_t p, std::int32_t q) { return p <= q; });
    case ir::Binary::gt:
      return run([](std::int32_t p, std::int32_t q) { return p > q; });
    case ir::Binary::ge:
      return run([](std::int32_t p, std::int32_t q) { return p >= q; });
    default:
      return false;
  }
}

}  // namespace

bool binary_any(ir::Binary op, const Tensor& a, const Tensor& b, Tensor& out) {
  const auto read_a = reader(a.dtype()), read_b = reader(b.dtype());
  if (!read_a || !read_b) return false;
  const DType dtype = reference::binary_dtype(op, a.dtype(), b.dtype());
  if (dtype != DType::boolean && dtype != DType::i32 && dtype != DType::f32) return false;
  const bool integers = !is_float(a.dtype()) && !is_float(b.dtype());
  const Shape shape = reference::broadcast_shapes(a.shape(), b.shape());
  out = Tensor::uninitialized(dtype, shape);
  // The buffers read once, not per element (a mask's compare runs here).
  const void* pa = a.raw();
  const void* pb = b.raw();
  if (dtype == DType::boolean && a.dtype() == DType::i32 && b.dtype() == DType::i32 &&
      compare_i32(op, static_cast<const std::int32_t*>(pa), static_cast<const std::int32_t*>(pb), a,
                  b, shape, static_cast<unsigned char*>(out.raw())))
    return true;
  const ir::Formula& f = ir::formula(op, integers);  // types/binary.def's, as the reference's
  if (dtype == DType::boolean) {
    auto* o = static_cast<unsigned char*>(out.raw());
    each_broadcast(shape, {&a, &b}, [&](std::int64_t k, const Shape& at) {
      o[k] = ir::evaluate(f, read_a(pa, at[0]), read_b(pb, at[1])) != 0;
    });
    return true;
  }
  each_broadcast(shape, {&a, &b}, [&](std::int64_t k, const Shape& at) {
    out.set(k, ir::evaluate(f, read_a(pa, at[0]), read_b(pb, at[1])));
  });  // an i32 stored as the reference stores it
  return true;
}

bool argmax(const Tensor& x, std::int64_t axis, bool keep, Tensor& out) {
  if (x.dtype() != DType::f32 || x.rank() == 0 || axis != x.rank() - 1) return false;
  const std::int64_t group = x.dim(axis);
  if (group == 0) return false;  // the reference's error
  const Tensor c = x.contiguous() ? x : x.compact();
  Shape shape(x.shape().begin(), x.shape().end() - 1);
  if (keep) shape.push_back(1);
  out = Tensor::uninitialized(DType::i32, shape);
  const auto* p = static_cast<const float*>(c.raw());
  auto* o = static_cast<std::int32_t*>(out.raw());
  for (std::int64_t r = 0, rows = c.size() / group; r < rows; ++r) {
    const float* row = p + r * group;
    std::int64_t best = 0;  // std::max_element's: the first, moved only by a larger one
    for (std::int64_t g = 1; g < group; ++g)
      if (row[best] < row[g]) best = g;
    o[r] = static_cast<std::int32_t>(best);
  }
  return true;
}

bool cross_entropy(const Tensor& logits, const Tensor& labels, std::int64_t axis, bool sum,
                   Tensor& out, bool portable) {
  if (logits.dtype() != DType::f32 || logits.rank() == 0 || axis != logits.rank() - 1) return false;
  Tensor ids;
  if (!ids_of(labels, ids)) return false;
  const std::int64_t classes = logits.dim(axis);
  const std::int64_t rows = classes ? logits.size() / classes : 0;
  if (ids.size() != rows || classes == 0) return false;  // the reference's errors
  const Tensor c = logits.contiguous() ? logits : logits.compact();
  const auto* p = static_cast<const float*>(c.raw());
  const auto* label = static_cast<const std::int32_t*>(ids.raw());
  double total = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = p + r * classes;
    // log_softmax's element at the label: x - logsumexp, in float.
    const float lse = reduce_row(ir::Reduce::logsumexp, row, classes, portable);
    const std::int64_t l = label[r];
    if (l < 0 || l >= classes) throw reference::RangeError(l, classes, r);
    total -= static_cast<double>(row[l] - lse);
  }
  out = Tensor::scalar(DType::f32, sum ? total : total / static_cast<double>(rows));
  return true;
}

bool gather(const Tensor& table, const Tensor& ids, Tensor& out) {
  Tensor kept;
  if (table.rank() < 1 || !ids_of(ids, kept)) return false;
  const Tensor t = table.contiguous() ? table : table.compact();
  const std::int64_t rows = t.dim(0);
  const std::int64_t row = rows == 0 ? t.size() : t.size() / rows;
  const std::size_t bytes = static_cast<std::size_t>(row) * dtype_size(t.dtype());
  Shape shape = kept.shape();
  shape.insert(shape.end(), t.shape().begin() + 1, t.shape().end());
  out = Tensor::uninitialized(t.dtype(), shape);
  const auto* id = static_cast<const std::int32_t*>(kept.raw());
  const auto* from = static_cast<const unsigned char*>(t.raw());
  auto* to = static_cast<unsigned char*>(out.raw());
  for (std::int64_t i = 0, n = kept.size(); i < n; ++i) {
    if (id[i] < 0 || id[i] >= rows) throw reference::RangeError(id[i], rows, i);
    std::memcpy(to + static_cast<std::size_t>(i) * bytes,
                from + static_cast<std::size_t>(id[i]) * bytes, bytes);
  }
  return true;
}

bool scatter_add(const Tensor& values, const Tensor& ids, const Shape& table_shape, Tensor& out) {
  Tensor kept;
  if (values.dtype() != DType::f32 || table_shape.empty() || !ids_of(ids, kept)) return false;
  const std::int64_t rows = table_shape[0];
  const std::int64_t count = element_count(table_shape);
  const std::int64_t row = rows == 0 ? count : count / rows;
  if (values.size() != kept.size() * row) return false;  // the reference's error
  const Tensor v = values.contiguous() ? values : values.compact();
  if (!fill(DType::f32, table_shape, 0.0, out)) return false;
  const auto* id = static_cast<const std::int32_t*>(kept.raw());
  const auto* from = static_cast<const float*>(v.raw());
  auto* to = static_cast<float*>(out.raw());
  for (std::int64_t i = 0, n = kept.size(); i < n; ++i) {
    if (id[i] < 0 || id[i] >= rows) throw reference::RangeError(id[i], rows, i);
    float* target = to + static_cast<std::int64_t>(id[i]) * row;
    const float* source = from + i * row;
    for (std::int64_t k = 0; k < row; ++k) target[k] += source[k];
  }
  return true;
}

namespace {

// Rows of `size` normalised: the mean taken away (when `centre`), divided
// by the root of the mean square plus eps; sums in doubles in eight lanes
// added pairwise (fast_loops.cpp's sum_row and squares_row, the same bits),
// the body inlined into each instruction set's copy below.
[[gnu::always_inline]] inline void normalise_rows_body(const float* p, float* o, std::int64_t rows,
                                                       std::int64_t size, bool centre, double eps) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = p + r * size;
    const double mean =
        centre ? lane_sum(row, size, [](double x) { return x; }) / static_cast<double>(size) : 0.0;
    const double squares =
        lane_sum(row, size, [mean](double x) { return (x - mean) * (x - mean); });
    const double scale = 1.0 / std::sqrt(squares / static_cast<double>(size) + eps);
    for (std::int64_t i = 0; i < size; ++i)
      o[r * size + i] = static_cast<float>((row[i] - mean) * scale);
  }
}

// Eight floats as doubles, and back (rounded to nearest). The zero-masked
// forms: GCC 12 warns that the plain ones' undefined source may be used.
[[gnu::target("avx512f")]] inline __m512d widen(const float* p) {
  return _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(p));
}
[[gnu::target("avx512f")]] inline __m256 narrow(__m512d x) {
  return _mm512_maskz_cvtpd_ps(0xFF, x);
}

// Four rows of normalise_rows_body at once, each row's sums the same lanes
// in the same order (one vector of eight doubles a row), the four rows'
// chains of adds in flight together.
[[gnu::target("avx512f")]] void normalise_four_avx512(const float* p, float* o, std::int64_t size,
                                                      bool centre, double eps) {
  constexpr int R = 4;
  const std::int64_t whole = size / 8 * 8;
  double mean[R] = {}, scale[R];
  // a row's lanes (stored) plus its tail, element g in lane g % 8, added pairwise
  alignas(64) double lane[R][8];
  const auto total = [&](int r, auto term) {
    for (std::int64_t g = whole, k = 0; g < size; ++g, ++k)
      lane[r][k] += term(static_cast<double>(p[r * size + g]));
    return add_lanes(lane[r]);
  };
  if (centre) {
    __m512d lanes[R];
    for (int r = 0; r < R; ++r) lanes[r] = _mm512_setzero_pd();
    for (std::int64_t g = 0; g < whole; g += 8)
      for (int r = 0; r < R; ++r) lanes[r] = _mm512_add_pd(lanes[r], widen(p + r * size + g));
    for (int r = 0; r < R; ++r) {
      _mm512_store_pd(lane[r], lanes[r]);
      mean[r] = total(r, [](double x) { return x; }) / static_cast<double>(size);
    }
  }
  {
    __m512d lanes[R], centres[R];
    for (int r = 0; r < R; ++r) {
      lanes[r] = _mm512_setzero_pd();
      centres[r] = _mm512_set1_pd(mean[r]);
    }
    for (std::int64_t g = 0; g < whole; g += 8)
      for (int r = 0; r < R; ++r) {
        const __m512d d = _mm512_sub_pd(widen(p + r * size + g), centres[r]);
        lanes[r] = _mm512_add_pd(lanes[r], _mm512_mul_pd(d, d));
      }
    for (int r = 0; r < R; ++r) {
      const double m = mean[r];
      _mm512_store_pd(lane[r], lanes[r]);
      const double squares = total(r, [m](double x) { return (x - m) * (x - m); });
      scale[r] = 1.0 / std::sqrt(squares / static_cast<double>(size) + eps);
    }
  }
  for (int r = 0; r < R; ++r) {
    const __m512d m = _mm512_set1_pd(mean[r]), k = _mm512_set1_pd(scale[r]);
    const float* row = p + r * size;
    float* out = o + r * size;
    std::int64_t i = 0;
    for (; i < whole; i += 8)
      _mm256_storeu_ps(out + i, narrow(_mm512_mul_pd(_mm512_sub_pd(widen(row + i), m), k)));
    for (; i < size; ++i) out[i] = static_cast<float>((row[i] - mean[r]) * scale[r]);
  }
}

[[gnu::target("avx512f")]] void normalise_rows_avx512(const float* p, float* o, std::int64_t rows,
                                                      std::int64_t size, bool centre, double eps) {
  std::int64_t r = 0;
  for (; r + 4 <= rows; r += 4)
    normalise_four_avx512(p + r * size, o + r * size, size, centre, eps);
  normalise_rows_body(p + r * size, o + r * size, rows - r, size, centre, eps);
}

void normalise_rows(const float* p, float* o, std::int64_t rows, std::int64_t size, bool centre,
                    double eps) {
  static const bool avx512 = kernel_isa() >= runtime::Isa::avx512;
  if (avx512) return normalise_rows_avx512(p, o, rows, size, centre, eps);
  normalise_rows_body(p, o, rows, size, centre, eps);
}

}  // namespace

bool normalise(const Tensor& x, std::int64_t axis, bool centre, double eps, Tensor& out) {
  if (x.dtype() != DType::f32 || x.rank() == 0 || axis != x.rank() - 1) return false;
  const std::int64_t size = x.dim(axis);
  const Tensor c = x.contiguous() ? x : x.compact();
  out = Tensor::uninitialized(DType::f32, x.shape());
  normalise_rows(static_cast<const float*>(c.raw()), static_cast<float*>(out.raw()),
                 size ? c.size() / size : 0, size, centre, eps);
  return true;
}

Tensor expand(const Tensor& x, const Shape& shape) {
  Tensor out = Tensor::uninitialized(x.dtype(), shape);
  each_broadcast(shape, {&x},
                 [&](std::int64_t k, const Shape& at) { copy_element(x, at[0], out, k); });
  return out;
}

bool where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) {
  const auto read_c = reader(cond.dtype());
  if (!read_c || a.dtype() != b.dtype() || !reader(a.dtype())) return false;  // mixed: reference
  const Shape shape =
      reference::broadcast_shapes(cond.shape(), reference::broadcast_shapes(a.shape(), b.shape()));
  out = Tensor::uninitialized(a.dtype(), shape);
  const void* pc = cond.raw();
  const auto* pa = static_cast<const char*>(a.raw());
  const auto* pb = static_cast<const char*>(b.raw());
  auto* po = static_cast<char*>(out.raw());
  const std::size_t size = dtype_size(a.dtype());
  const bool boolean = cond.dtype() == DType::boolean;
  const auto run = [&](auto bytes) {  // the element's size known to the compiler
    constexpr std::size_t n = decltype(bytes)::value;
    each_broadcast(shape, {&cond, &a, &b}, [&](std::int64_t k, const Shape& at) {
      const bool pick =
          boolean ? static_cast<const unsigned char*>(pc)[at[0]] != 0 : read_c(pc, at[0]) != 0;
      const char* from = pick ? pa + at[1] * static_cast<std::int64_t>(n)
                              : pb + at[2] * static_cast<std::int64_t>(n);
      std::memcpy(po + k * static_cast<std::int64_t>(n), from, n);
    });
  };
  if (size == 4)
    run(std::integral_constant<std::size_t, 4>{});
  else if (size == 2)
    run(std::integral_constant<std::size_t, 2>{});
  else if (size == 1)
    run(std::integral_constant<std::size_t, 1>{});
  else
    each_broadcast(shape, {&cond, &a, &b}, [&](std::int64_t k, const Shape& at) {
      const bool pick = read_c(pc, at[0]) != 0;
      copy_element(pick ? a : b, at[pick ? 1 : 2], out, k);
    });
  return true;
}

namespace {

// A contiguous tensor as [outer, size, inner] around `axis`.
struct Around {
  std::int64_t outer = 1, size = 1, inner = 1;
  Around(const Tensor& t, std::int64_t axis) {
    for (std::int64_t d = 0; d < t.rank(); ++d)
      (d < axis ? outer : d == axis ? size : inner) *= t.dim(d);
  }
};

}  // namespace

bool pad(const Tensor& x, std::int64_t axis, std::int64_t before, std::int64_t after, double value,
         Tensor& out) {
  if (axis < 0 || axis >= x.rank() || before < 0 || after < 0) return false;
  Shape shape = x.shape();
  shape[static_cast<std::size_t>(axis)] += before + after;
  if (!fill(x.dtype(), shape, value, out)) return false;
  const Tensor c = x.contiguous() ? x : x.compact();
  const Around from(c, axis), to(out, axis);
  const std::size_t size = dtype_size(x.dtype());
  const std::size_t run = static_cast<std::size_t>(from.size * from.inner) * size;
  for (std::int64_t o = 0; o < from.outer; ++o)
    std::memcpy(static_cast<char*>(out.raw()) +
                    static_cast<std::size_t>((o * to.size + before) * to.inner) * size,
                static_cast<const char*>(c.raw()) + static_cast<std::size_t>(o) * run, run);
  return true;
}

bool concat(std::span<const Tensor> xs, std::int64_t axis, Tensor& out) {
  if (xs.empty() || axis < 0 || axis >= xs[0].rank()) return false;
  Shape shape = xs[0].shape();
  shape[static_cast<std::size_t>(axis)] = 0;
  for (const auto& x : xs) {
    if (x.dtype() != xs[0].dtype() || x.rank() != xs[0].rank()) return false;
    shape[static_cast<std::size_t>(axis)] += x.dim(axis);
  }
  out = Tensor::uninitialized(xs[0].dtype(), shape);
  const Around to(out, axis);
  const std::size_t size = dtype_size(out.dtype());
  std::int64_t offset = 0;
  for (const auto& x : xs) {
    const Tensor c = x.contiguous() ? x : x.compact();
    const Around from(c, axis);
    const std::size_t run = static_cast<std::size_t>(from.size * from.inner) * size;
    for (std::int64_t o = 0; o < from.outer; ++o)
      std::memcpy(static_cast<char*>(out.raw()) +
                      static_cast<std::size_t>((o * to.size + offset) * to.inner) * size,
                  static_cast<const char*>(c.raw()) + static_cast<std::size_t>(o) * run, run);
    offset += from.size;
  }
  return true;
}

bool stack(std::span<const Tensor> xs, Tensor& out) {
  if (xs.empty()) return false;
  Shape shape = xs[0].shape();
  shape.insert(shape.begin(), static_cast<std::int64_t>(xs.size()));
  for (const auto& x : xs)
    if (x.dtype() != xs[0].dtype() || x.shape() != xs[0].shape()) return false;
  out = Tensor::uninitialized(xs[0].dtype(), shape);
  const std::size_t bytes = static_cast<std::size_t>(xs[0].size()) * dtype_size(out.dtype());
  for (std::size_t t = 0; t < xs.size(); ++t) {
    const Tensor c = xs[t].contiguous() ? xs[t] : xs[t].compact();
    std::memcpy(static_cast<char*>(out.raw()) + t * bytes, c.raw(), bytes);
  }
  return true;
}

bool sort(const Tensor& x, std::int64_t axis, bool indices, Tensor& out) {
  const auto read = reader(x.dtype());
  if (!read || axis < 0 || axis >= x.rank()) return false;
  const Tensor c = x.contiguous() ? x : x.compact();
  const Around v(c, axis);
  out = Tensor::uninitialized(indices ? DType::i32 : x.dtype(), x.shape());
  std::vector<std::int64_t> order(static_cast<std::size_t>(v.size));
  std::vector<double> run(static_cast<std::size_t>(v.size));
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t k = 0; k < v.inner; ++k) {
      const auto at = [&](std::int64_t i) { return (o * v.size + i) * v.inner + k; };
      for (std::int64_t i = 0; i < v.size; ++i)
        run[static_cast<std::size_t>(i)] = read(c.raw(), at(i));
      for (std::int64_t i = 0; i < v.size; ++i) order[static_cast<std::size_t>(i)] = i;
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return run[static_cast<std::size_t>(a)] < run[static_cast<std::size_t>(b)];
      });
      for (std::int64_t i = 0; i < v.size; ++i) {
        const std::int64_t from = order[static_cast<std::size_t>(i)];
        if (indices)
          static_cast<std::int32_t*>(out.raw())[at(i)] = static_cast<std::int32_t>(from);
        else
          copy_element(c, at(from), out, at(i));
      }
    }
  return true;
}

}  // namespace ss::runtime::fast
