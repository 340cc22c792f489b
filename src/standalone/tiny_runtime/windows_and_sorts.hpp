// The tiny runtime, part 4 of 4 (after along_axis.hpp): windows, their
// folds, and sorts; it closes the namespace and the guard values.hpp opened.

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
