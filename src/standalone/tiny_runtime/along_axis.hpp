// The tiny runtime, part 3 of 4 (after contractions.hpp): operations along
// one axis: causal masks, norms, gathers and scatters, slices, joins, pads.

// ---- along one axis: outer x size x inner ----
struct Along {
  std::int64_t outer = 1, size = 1, inner = 1;
  Along(const Shape& s, std::int64_t axis) {
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(s.size()); ++d)
      (d < axis ? outer : d == axis ? size : inner) *= s[static_cast<std::size_t>(d)];
  }
  std::size_t at(std::int64_t o, std::int64_t i, std::int64_t k) const {
    return static_cast<std::size_t>((o * size + i) * inner + k);
  }
};

inline void check_range(const Tensor& ids, std::int64_t bound) {
  for (const double v : ids.v)
    if (v < 0 || v >= static_cast<double>(bound)) throw std::out_of_range("an index out of range");
}

inline Tensor causal(const Tensor& x) {
  Tensor r = x;
  const std::int64_t rows = x.shape[x.shape.size() - 2], cols = x.shape.back();
  for (std::size_t f = 0; f < r.v.size(); ++f) {
    const auto e = static_cast<std::int64_t>(f);
    if (e % cols > (e / cols) % rows) r.v[f] = -std::numeric_limits<double>::infinity();
  }
  return r;
}

inline Tensor normalise(const Tensor& x, std::int64_t axis, bool centre, double eps) {
  const Along a(x.shape, axis);
  Tensor r = make(x.dtype, x.shape);
  for (std::int64_t o = 0; o < a.outer; ++o)
    for (std::int64_t k = 0; k < a.inner; ++k) {
      double mean = 0;
      if (centre) {
        for (std::int64_t i = 0; i < a.size; ++i) mean += x.v[a.at(o, i, k)];
        mean /= static_cast<double>(a.size);
      }
      double squares = 0;
      for (std::int64_t i = 0; i < a.size; ++i) squares += std::pow(x.v[a.at(o, i, k)] - mean, 2);
      const double scale = 1.0 / std::sqrt(squares / static_cast<double>(a.size) + eps);
      for (std::int64_t i = 0; i < a.size; ++i)
        r.v[a.at(o, i, k)] = store(x.dtype, (x.v[a.at(o, i, k)] - mean) * scale);
    }
  return r;
}
inline Tensor layer_norm(const Tensor& x, std::int64_t axis, double eps) {
  return normalise(x, axis, true, eps);
}
inline Tensor rms_norm(const Tensor& x, std::int64_t axis, double eps) {
  return normalise(x, axis, false, eps);
}

inline Tensor gather(const Tensor& table, const Tensor& ids) {
  const std::int64_t rows = table.shape.at(0);
  const std::int64_t row = rows ? table.size() / rows : 0;
  check_range(ids, rows);
  Shape s = ids.shape;
  s.insert(s.end(), table.shape.begin() + 1, table.shape.end());
  Tensor r = make(table.dtype, s);
  for (std::int64_t i = 0; i < ids.size(); ++i) {
    const auto id = static_cast<std::int64_t>(ids.v[static_cast<std::size_t>(i)]);
    for (std::int64_t k = 0; k < row; ++k)
      r.v[static_cast<std::size_t>(i * row + k)] = table.v[static_cast<std::size_t>(id * row + k)];
  }
  return r;
}
inline Tensor scatter_add(const Tensor& values, const Tensor& ids, const Shape& table) {
  Tensor r = make(F32, table);
  const std::int64_t rows = table.at(0);
  const std::int64_t row = rows ? r.size() / rows : 0;
  check_range(ids, rows);
  for (std::int64_t i = 0; i < ids.size(); ++i) {
    const auto id = static_cast<std::int64_t>(ids.v[static_cast<std::size_t>(i)]);
    for (std::int64_t k = 0; k < row; ++k) {
      double& into = r.v[static_cast<std::size_t>(id * row + k)];
      into = store(F32, into + values.v[static_cast<std::size_t>(i * row + k)]);
    }
  }
  return r;
}
inline Tensor take_along(const Tensor& x, const Tensor& ids, std::int64_t axis) {
  const Along a(x.shape, axis);
  check_range(ids, a.size);
  Tensor r = make(x.dtype, x.shape);
  for (std::size_t f = 0; f < r.v.size(); ++f) {
    const auto e = static_cast<std::int64_t>(f);
    const auto j = static_cast<std::int64_t>(ids.v[f]);
    r.v[f] = x.v[static_cast<std::size_t>(e + (j - (e / a.inner) % a.size) * a.inner)];
  }
  return r;
}

// Elements [start, end) along `axis`, into a tensor of their own.
inline Tensor slice(const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t end) {
  const Along a(x.shape, axis);
  if (start < 0 || end > a.size || start > end) throw std::out_of_range("a slice outside its axis");
  Shape s = x.shape;
  s[static_cast<std::size_t>(axis)] = end - start;
  Tensor r = make(x.dtype, s);
  const Along b(s, axis);
  for (std::int64_t o = 0; o < a.outer; ++o)
    for (std::int64_t i = start; i < end; ++i)
      for (std::int64_t k = 0; k < a.inner; ++k) r.v[b.at(o, i - start, k)] = x.v[a.at(o, i, k)];
  return r;
}
inline Tensor index(const Tensor& x, std::int64_t axis, std::int64_t at) {
  const std::int64_t size = x.shape.at(static_cast<std::size_t>(axis));
  if (at < 0) at += size;
  if (at < 0 || at >= size) throw std::out_of_range("an index outside its axis");
  Tensor r = slice(x, axis, at, at + 1);
  r.shape.erase(r.shape.begin() + axis);
  return r;
}
// `values` put at [start, end) of `axis` in zeros of `shape` (an index's
// values lack that axis: end = start + 1 then).
inline Tensor place(const Tensor& values, const Shape& shape, std::int64_t axis, std::int64_t start,
                    std::int64_t end) {
  Tensor r = make(values.dtype, shape);
  const Along a(shape, axis);
  Shape part = shape;
  part[static_cast<std::size_t>(axis)] = end - start;
  const Along b(part, axis);
  for (std::int64_t o = 0; o < a.outer; ++o)
    for (std::int64_t i = start; i < end; ++i)
      for (std::int64_t k = 0; k < a.inner; ++k)
        r.v[a.at(o, i, k)] = values.v[b.at(o, i - start, k)];
  return r;
}
inline Tensor concat(const std::vector<const Tensor*>& xs, std::int64_t axis) {
  Shape s = xs.at(0)->shape;
  s[static_cast<std::size_t>(axis)] = 0;
  for (const auto* x : xs)
    s[static_cast<std::size_t>(axis)] += x->shape[static_cast<std::size_t>(axis)];
  Tensor r = make(xs[0]->dtype, s);
  const Along out(s, axis);
  std::int64_t offset = 0;
  for (const auto* x : xs) {
    const Along a(x->shape, axis);
    for (std::int64_t o = 0; o < a.outer; ++o)
      for (std::int64_t i = 0; i < a.size; ++i)
        for (std::int64_t k = 0; k < a.inner; ++k)
          r.v[out.at(o, offset + i, k)] = x->v[a.at(o, i, k)];
    offset += a.size;
  }
  return r;
}
inline Tensor stack(const std::vector<const Tensor*>& xs) {
  Shape s = xs.at(0)->shape;
  s.insert(s.begin(), static_cast<std::int64_t>(xs.size()));
  Tensor r = make(xs[0]->dtype, s);
  std::size_t at = 0;
  for (const auto* x : xs)
    for (const double e : x->v) r.v[at++] = e;
  return r;
}
inline Tensor pad(const Tensor& x, std::int64_t axis, std::int64_t before, std::int64_t after,
                  double value) {
  Shape s = x.shape;
  s[static_cast<std::size_t>(axis)] += before + after;
  Tensor r = fill(x.dtype, s, value);
  const Along a(x.shape, axis), b(s, axis);
  for (std::int64_t o = 0; o < a.outer; ++o)
    for (std::int64_t i = 0; i < a.size; ++i)
      for (std::int64_t k = 0; k < a.inner; ++k) r.v[b.at(o, before + i, k)] = x.v[a.at(o, i, k)];
  return r;
}
