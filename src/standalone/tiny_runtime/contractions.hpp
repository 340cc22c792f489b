// The tiny runtime, part 2 of 4 (after values.hpp): products, reductions,
// softmax and cross-entropy, einsum and einops.

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
  return binary(B_SUB, x, reduce(LOGSUMEXP, x, {axis}, true));
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
