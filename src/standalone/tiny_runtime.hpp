// The tiny runtime a standalone build (`shapescript build --standalone`)
// puts at the top of the C++ source it writes: the reference runtime's
// operations, plainly, on values held as doubles rounded to their element
// type, so the generated functions give the library's results within
// float32 rounding with nothing but the C++ standard library. This file is
// embedded in the library as text (src/CMakeLists.txt) and also compiled
// by the tests, so it stays valid C++17.
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
enum Binary { ADD, SUB, MUL, DIV, POW, MOD, FLOORDIV, MAX, MIN, LT, LE, GT, GE, EQ, NE, AND, OR };

// The library's unary functions (src/types/unary.def), which the generated
// file writes above this runtime: enum Unary, unary_result, unary_formula.
inline double unary_of(int op, double x) {
  return unary_formula(op, x);
}
inline double binary_of(int op, double a, double b, bool integers) {
  switch (op) {
    case ADD:
      return a + b;
    case SUB:
      return a - b;
    case MUL:
      return a * b;
    case DIV:
      return a / b;
    case POW:
      return std::pow(a, b);
    case FLOORDIV:
      return integers && b == 0 ? 0 : std::floor(a / b);
    case MOD: {
      if (b == 0) return integers ? 0 : std::numeric_limits<double>::quiet_NaN();
      const double r = std::fmod(a, b);
      return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
    }
    case MAX:
      return std::isnan(a) || std::isnan(b) ? std::nan("") : std::fmax(a, b);
    case MIN:
      return std::isnan(a) || std::isnan(b) ? std::nan("") : std::fmin(a, b);
    case LT:
      return a < b;
    case LE:
      return a <= b;
    case GT:
      return a > b;
    case GE:
      return a >= b;
    case EQ:
      return a == b;
    case NE:
      return a != b;
    case AND:
      return a != 0 && b != 0;
    default:
      return a != 0 || b != 0;  // OR
  }
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
  const DType t = op >= LT ? BOOL : (op == DIV && integers) ? F32 : common(a.dtype, b.dtype);
  Tensor r = make(t, broadcast_shape(a.shape, b.shape));
  const auto ia = offsets(a, r.shape), ib = offsets(b, r.shape);
  for (std::size_t i = 0; i < r.v.size(); ++i)
    r.v[i] = store(t, binary_of(op, a.v[static_cast<std::size_t>(ia[i])],
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

// ---- contractions and reductions ----
inline Tensor matmul(const Tensor& a, const Tensor& b) {
  const std::int64_t k = b.shape.at(0);
  const std::int64_t rows = count(Shape(a.shape.begin(), a.shape.end() - 1));
  const std::int64_t cols = count(Shape(b.shape.begin() + 1, b.shape.end()));
  Shape s(a.shape.begin(), a.shape.end() - 1);
  s.insert(s.end(), b.shape.begin() + 1, b.shape.end());
  std::vector<double> sums(static_cast<std::size_t>(rows * cols), 0.0);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t p = 0; p < k; ++p) {
      const double left = a.v[static_cast<std::size_t>(i * k + p)];
      for (std::int64_t j = 0; j < cols; ++j)
        sums[static_cast<std::size_t>(i * cols + j)] +=
            left * b.v[static_cast<std::size_t>(p * cols + j)];
    }
  return of(F32, s, sums);
}

enum Reduce { SUM, MEAN, RMAX, RMIN, LOGSUMEXP, VAR, STD };

// Each group over `axes` (the others kept, in order), reduced by `f`.
inline Tensor groups(const Tensor& x, const std::vector<std::int64_t>& axes, bool keep, DType t,
                     const std::function<double(const std::vector<double>&)>& f) {
  std::vector<bool> reduced(x.shape.size(), false);
  for (const auto a : axes) reduced[static_cast<std::size_t>(a)] = true;
  Shape out, kept;
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    if (!reduced[d]) kept.push_back(x.shape[d]);
    if (!reduced[d] || keep) out.push_back(reduced[d] ? 1 : x.shape[d]);
  }
  std::vector<std::vector<double>> members(static_cast<std::size_t>(count(kept)));
  std::vector<std::int64_t> index(x.shape.size(), 0);
  for (std::size_t i = 0; i < x.v.size(); ++i) {
    std::int64_t g = 0;
    for (std::size_t d = 0; d < x.shape.size(); ++d)
      if (!reduced[d]) g = g * x.shape[d] + index[d];
    members[static_cast<std::size_t>(g)].push_back(x.v[i]);
    for (std::size_t d = x.shape.size(); d-- > 0;) {
      if (++index[d] < x.shape[d]) break;
      index[d] = 0;
    }
  }
  Tensor r = make(t, out);
  for (std::size_t g = 0; g < members.size(); ++g) r.v[g] = store(t, f(members[g]));
  return r;
}
inline double logsumexp_of(const std::vector<double>& v) {
  double peak = -std::numeric_limits<double>::infinity();
  for (const double e : v) peak = std::max(peak, e);
  if (!std::isfinite(peak)) return peak;
  double total = 0;
  for (const double e : v) total += std::exp(e - peak);
  return peak + std::log(total);
}
inline Tensor reduce(int op, const Tensor& x, const std::vector<std::int64_t>& axes, bool keep) {
  DType t = x.dtype;
  const bool needs_float = op == MEAN || op == LOGSUMEXP || op == VAR || op == STD;
  if ((needs_float && !is_float(t)) || (op == SUM && t == BOOL)) t = F32;
  return groups(x, axes, keep, t, [op](const std::vector<double>& v) {
    const double n = static_cast<double>(v.size());
    double sum = 0;
    for (const double e : v) sum += e;
    switch (op) {
      case SUM:
        return sum;
      case MEAN:
        return sum / n;
      case RMAX:
        return *std::max_element(v.begin(), v.end());
      case RMIN:
        return *std::min_element(v.begin(), v.end());
      case LOGSUMEXP:
        return logsumexp_of(v);
      default: {
        double squares = 0;
        for (const double e : v) squares += (e - sum / n) * (e - sum / n);
        return op == VAR ? squares / n : std::sqrt(squares / n);
      }
    }
  });
}
inline Tensor argmax(const Tensor& x, std::int64_t axis, bool keep) {
  return groups(x, {axis}, keep, I32, [](const std::vector<double>& v) {
    return static_cast<double>(std::max_element(v.begin(), v.end()) - v.begin());
  });
}
inline Tensor log_softmax(const Tensor& x, std::int64_t axis) {
  return binary(SUB, x, reduce(LOGSUMEXP, x, {axis}, true));
}
inline Tensor softmax(const Tensor& x, std::int64_t axis) {
  return unary(EXP, log_softmax(x, axis));
}
inline Tensor cross_entropy(const Tensor& logits, const Tensor& labels, std::int64_t axis,
                            bool sum) {
  const Tensor log_p = log_softmax(logits, axis);
  const std::int64_t classes = logits.shape[static_cast<std::size_t>(axis)];
  const std::int64_t inner = count(Shape(logits.shape.begin() + axis + 1, logits.shape.end()));
  const std::int64_t outer = logits.size() / (classes * inner);
  double total = 0;
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      const auto label =
          static_cast<std::int64_t>(labels.v[static_cast<std::size_t>(o * inner + i)]);
      if (label < 0 || label >= classes) throw std::out_of_range("a label out of range");
      total -= log_p.v[static_cast<std::size_t>((o * classes + label) * inner + i)];
    }
  return of(F32, {}, {sum ? total : total / static_cast<double>(outer * inner)});
}

// Any einsum: every name once, the output's first, summing each product
// into its output element.
inline Tensor einsum(const std::vector<const Tensor*>& xs,
                     const std::vector<std::vector<std::string>>& in,
                     const std::vector<std::string>& out) {
  std::vector<std::string> names = out;
  std::vector<std::int64_t> sizes(out.size(), -1);
  for (std::size_t t = 0; t < xs.size(); ++t)
    for (std::size_t k = 0; k < in[t].size(); ++k) {
      const auto at = std::find(names.begin(), names.end(), in[t][k]);
      if (at == names.end()) {
        names.push_back(in[t][k]);
        sizes.push_back(xs[t]->shape[k]);
      } else {
        sizes[static_cast<std::size_t>(at - names.begin())] = xs[t]->shape[k];
      }
    }
  const Shape out_shape(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(out.size()));
  std::vector<std::vector<std::int64_t>> steps(xs.size() + 1,
                                               std::vector<std::int64_t>(names.size(), 0));
  for (std::size_t t = 0; t <= xs.size(); ++t) {
    const Shape& s = t < xs.size() ? xs[t]->shape : out_shape;
    const auto& axes = t < xs.size() ? in[t] : out;
    std::int64_t stride = 1;
    for (std::size_t k = axes.size(); k-- > 0;) {
      steps[t][static_cast<std::size_t>(std::find(names.begin(), names.end(), axes[k]) -
                                        names.begin())] += stride;
      stride *= s[k];
    }
  }
  std::vector<double> sums(static_cast<std::size_t>(count(out_shape)), 0.0);
  std::vector<std::int64_t> index(names.size(), 0);
  const std::int64_t total = count(sizes);
  for (std::int64_t e = 0; e < total; ++e) {
    double product = 1;
    std::int64_t o = 0;
    for (std::size_t t = 0; t <= xs.size(); ++t) {
      std::int64_t at = 0;
      for (std::size_t k = 0; k < names.size(); ++k) at += index[k] * steps[t][k];
      if (t < xs.size())
        product *= xs[t]->v[static_cast<std::size_t>(at)];
      else
        o = at;
    }
    sums[static_cast<std::size_t>(o)] += product;
    for (std::size_t k = names.size(); k-- > 0;) {
      if (++index[k] < sizes[k]) break;
      index[k] = 0;
    }
  }
  return of(F32, out_shape, sums);
}

// An einops rearrange, repeat or reduction: the input's atoms as groups of
// names (a size-1 atom has none), the output's groups, the names' sizes as
// far as they are known (the rest follow from the input's shape), and a
// reduction ("sum", "mean", "max", "min") or "".
inline Tensor einops(const Tensor& x, const std::vector<std::vector<std::string>>& atoms,
                     const std::vector<std::vector<std::string>>& out_groups,
                     std::map<std::string, std::int64_t> sizes, const std::string& op) {
  std::vector<std::string> in;  // per input axis after splitting, "" for size 1
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    std::int64_t known = 1;
    std::string unknown;
    for (const auto& n : atoms[a]) {
      if (sizes.count(n))
        known *= sizes[n];
      else
        unknown = n;
    }
    if (!unknown.empty() ? known == 0 || x.shape[a] % known != 0
                         : !atoms[a].empty() && known != x.shape[a])
      throw std::invalid_argument("an axis doesn't split into the sizes given");
    if (!unknown.empty()) sizes[unknown] = x.shape[a] / known;
    if (atoms[a].empty()) in.emplace_back();
    in.insert(in.end(), atoms[a].begin(), atoms[a].end());
  }
  const auto size = [&](const std::string& n) { return n.empty() ? 1 : sizes.at(n); };
  Shape in_shape;
  for (const auto& n : in) in_shape.push_back(size(n));
  std::vector<std::string> out_names;
  Shape out_shape, elementary;
  for (const auto& g : out_groups) {
    std::int64_t n = 1;
    for (const auto& name : g) {
      out_names.push_back(name);
      elementary.push_back(size(name));
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
  Tensor r = make(op == "mean" && !is_float(x.dtype) ? F32 : x.dtype, out_shape);
  std::map<std::string, std::int64_t> at;
  const auto flat_in = [&] {
    std::int64_t f = 0;
    for (std::size_t k = 0; k < in.size(); ++k)
      f = f * in_shape[k] + (in[k].empty() ? 0 : at[in[k]]);
    return f;
  };
  std::vector<std::int64_t> o(elementary.size(), 0);
  for (std::size_t e = 0; e < r.v.size(); ++e) {
    for (std::size_t k = 0; k < out_names.size(); ++k) at[out_names[k]] = o[k];
    double acc = op == "max"   ? -std::numeric_limits<double>::infinity()
                 : op == "min" ? std::numeric_limits<double>::infinity()
                               : 0.0;
    std::vector<std::int64_t> q(reduced.size(), 0);
    for (std::int64_t c = 0, n = count(reduced_shape); c < n; ++c) {
      for (std::size_t k = 0; k < reduced.size(); ++k) at[reduced[k]] = q[k];
      const double v = x.v[static_cast<std::size_t>(flat_in())];
      acc = op == "max"   ? std::max(acc, v)
            : op == "min" ? std::min(acc, v)
            : op.empty()  ? v
                          : acc + v;
      for (std::size_t k = reduced.size(); k-- > 0;) {
        if (++q[k] < reduced_shape[k]) break;
        q[k] = 0;
      }
    }
    if (op == "mean") acc /= static_cast<double>(count(reduced_shape));
    r.v[e] = store(r.dtype, acc);
    for (std::size_t k = elementary.size(); k-- > 0;) {
      if (++o[k] < elementary[k]) break;
      o[k] = 0;
    }
  }
  return r;
}

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
// window and window_fold (ir/attributes.hpp's Window), from the definition:
// each windowed axis becomes its count of windows, each window's axes are
// appended; element (.., o, .., j) is x at o * stride + j * dilation -
// before along the axis, or the padding's value outside it. The fold adds
// each value back at its place, in row-major order, as the reference does.
struct WindowAxis {
  std::int64_t axis, size, stride, dilation, before, after;
};
inline Shape window_shape(Shape s, const std::vector<WindowAxis>& w) {
  for (const auto& a : w) {
    auto& n = s[static_cast<std::size_t>(a.axis)];
    const std::int64_t padded = n + a.before + a.after, span = a.dilation * (a.size - 1) + 1;
    n = padded < span ? 0 : (padded - span) / a.stride + 1;
  }
  for (const auto& a : w) s.push_back(a.size);
  return s;
}
// f(k, from): the window's k-th element reads x's element `from`, or -1.
template <typename F>
void each_window_element(const Shape& in, const std::vector<WindowAxis>& w, F f) {
  const Shape out = window_shape(in, w);
  std::vector<std::int64_t> index(out.size(), 0);
  const std::int64_t total = count(out);
  for (std::int64_t k = 0; k < total; ++k) {
    std::vector<std::int64_t> at(index.begin(),
                                 index.begin() + static_cast<std::ptrdiff_t>(in.size()));
    bool inside = true;
    for (std::size_t m = 0; m < w.size(); ++m) {
      const auto d = static_cast<std::size_t>(w[m].axis);
      at[d] = index[d] * w[m].stride + index[in.size() + m] * w[m].dilation - w[m].before;
      inside = inside && at[d] >= 0 && at[d] < in[d];
    }
    std::int64_t from = 0;
    for (std::size_t d = 0; d < in.size(); ++d) from = from * in[d] + at[d];
    f(k, inside ? from : -1);
    for (std::size_t d = out.size(); d-- > 0;) {
      if (++index[d] < out[d]) break;
      index[d] = 0;
    }
  }
}
inline Tensor window(const Tensor& x, const std::vector<WindowAxis>& w, double value) {
  Tensor r = fill(x.dtype, window_shape(x.shape, w), value);
  each_window_element(x.shape, w, [&](std::int64_t k, std::int64_t from) {
    if (from >= 0) r.v[static_cast<std::size_t>(k)] = x.v[static_cast<std::size_t>(from)];
  });
  return r;
}
inline Tensor window_fold(const Tensor& values, const Shape& like,
                          const std::vector<WindowAxis>& w) {
  Tensor r = fill(values.dtype, like, 0.0);
  each_window_element(like, w, [&](std::int64_t k, std::int64_t to) {
    if (to >= 0)
      r.v[static_cast<std::size_t>(to)] = store(
          values.dtype, r.v[static_cast<std::size_t>(to)] + values.v[static_cast<std::size_t>(k)]);
  });
  return r;
}

// Each run along `axis` sorted stably (as doubles compare), or the order
// that sorts it.
inline Tensor sort(const Tensor& x, std::int64_t axis, bool indices) {
  const Along a(x.shape, axis);
  Tensor r = make(indices ? I32 : x.dtype, x.shape);
  std::vector<std::int64_t> order(static_cast<std::size_t>(a.size));
  for (std::int64_t o = 0; o < a.outer; ++o)
    for (std::int64_t k = 0; k < a.inner; ++k) {
      for (std::int64_t i = 0; i < a.size; ++i) order[static_cast<std::size_t>(i)] = i;
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t p, std::int64_t q) {
        return x.v[a.at(o, p, k)] < x.v[a.at(o, q, k)];
      });
      for (std::int64_t i = 0; i < a.size; ++i) {
        const std::int64_t from = order[static_cast<std::size_t>(i)];
        r.v[a.at(o, i, k)] = indices ? static_cast<double>(from) : x.v[a.at(o, from, k)];
      }
    }
  return r;
}

// Steps stacked along a new axis at `axis`.
inline Tensor stack_along(const std::vector<Tensor>& xs, std::int64_t axis) {
  Shape s = xs.at(0).shape;
  std::int64_t outer = 1;
  for (std::int64_t k = 0; k < axis; ++k) outer *= s[static_cast<std::size_t>(k)];
  const std::int64_t inner = xs[0].size() / (outer > 0 ? outer : 1);
  const auto length = static_cast<std::int64_t>(xs.size());
  s.insert(s.begin() + axis, length);
  Tensor r = make(xs[0].dtype, s);
  for (std::int64_t t = 0; t < length; ++t)
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t k = 0; k < inner; ++k)
        r.v[static_cast<std::size_t>((o * length + t) * inner + k)] =
            xs[static_cast<std::size_t>(t)].v[static_cast<std::size_t>(o * inner + k)];
  return r;
}
// A loop (a stack's or slices' scan): `body` once per position of the
// stacked inputs, its inputs named `names` (the carries, the stacked ones'
// parts, the free values), its outputs the carries' next values then the
// per-step results, stacked at `result_axes`.
using Body = std::vector<Tensor> (*)(const std::map<std::string, Tensor>&);
inline std::vector<Tensor> loop(Body body, const std::vector<std::string>& names,
                                const std::vector<const Tensor*>& in, std::size_t carries,
                                std::size_t stacked, bool reverse,
                                const std::vector<std::int64_t>& axes,
                                const std::vector<std::int64_t>& result_axes) {
  std::map<std::string, Tensor> inputs;
  for (std::size_t k = 0; k < in.size(); ++k)
    if (k < carries || k >= carries + stacked) inputs[names[k]] = *in[k];
  const std::int64_t length = in.at(carries)->shape.at(static_cast<std::size_t>(axes[0]));
  std::vector<std::vector<Tensor>> steps(result_axes.size(),
                                         std::vector<Tensor>(static_cast<std::size_t>(length)));
  for (std::int64_t t = 0; t < length; ++t) {
    const std::int64_t at = reverse ? length - 1 - t : t;
    for (std::size_t j = 0; j < stacked; ++j)
      inputs[names[carries + j]] = index(*in[carries + j], axes[j], at);
    std::vector<Tensor> out = body(inputs);
    for (std::size_t k = 0; k < carries; ++k) inputs[names[k]] = out[k];
    for (std::size_t r = 0; r < result_axes.size(); ++r)
      steps[r][static_cast<std::size_t>(at)] = out[carries + r];
  }
  std::vector<Tensor> outputs;
  for (std::size_t k = 0; k < carries; ++k) outputs.push_back(inputs[names[k]]);
  for (std::size_t r = 0; r < result_axes.size(); ++r)
    outputs.push_back(stack_along(steps[r], result_axes[r]));
  return outputs;
}

}  // namespace ssa

#endif  // SS_STANDALONE_RUNTIME
