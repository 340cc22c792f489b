// The fast executor's window and window_fold: the input read in place, a
// run of each window's last axis at a time (one stride apart), instead of
// the reference's element-by-element index arithmetic.
#include <cstdint>
#include <cstring>

#include "runtime/fast/fast_ops.hpp"

namespace ss::runtime::fast {
namespace {

// Walks a windowed shape a run at a time: for each index of every axis but
// the last window axis, the input offset (in elements) of that window
// axis's element 0, the run's step between elements, and the range of j
// whose elements lie inside the input (the rest are padding).
template <typename F>
void each_run(const Shape& in, const ir::Window& w, F f) {
  const Shape out = w.shape_of(in);
  const std::size_t rank = in.size(), m = w.axes.size();
  Shape stride(rank, 1);
  for (std::size_t k = rank; k-- > 1;) stride[k - 1] = stride[k] * in[k];
  Shape windowed(rank, 0);  // flags (no heap)
  for (const auto& a : w.axes) windowed[static_cast<std::size_t>(a.axis)] = true;
  const ir::WindowAxis& last = w.axes.back();
  const auto last_axis = static_cast<std::size_t>(last.axis);
  const std::int64_t step = last.dilation * stride[last_axis];
  Shape index(out.size() - 1, 0);  // every axis but the last window's
  std::int64_t runs = 1;
  for (const auto n : index.empty() ? Shape{} : Shape(out.begin(), out.end() - 1)) runs *= n;
  if (element_count(out) == 0) return;
  for (std::int64_t r = 0; r < runs; ++r) {
    std::int64_t offset = 0;
    bool inside = true;
    for (std::size_t d = 0; d < rank && inside; ++d)
      if (!windowed[d]) offset += index[d] * stride[d];
    for (std::size_t k = 0; k + 1 < m && inside; ++k) {
      const auto& a = w.axes[k];
      const auto axis = static_cast<std::size_t>(a.axis);
      const std::int64_t p = a.position(index[axis], index[rank + k]);
      inside = p >= 0 && p < in[axis];
      offset += p * stride[axis];
    }
    // The last window axis: j in [first, end) lies inside.
    const std::int64_t start = last.position(index[last_axis], 0), n = in[last_axis];
    std::int64_t first = 0, end = last.size;
    if (!inside) {
      first = end = 0;
    } else {
      while (first < end && start + first * last.dilation < 0) ++first;
      while (end > first && start + (end - 1) * last.dilation >= n) --end;
    }
    f(r * last.size, offset + start * stride[last_axis], step, first, end);
    for (std::size_t k = index.size(); k-- > 0;) {
      if (++index[k] < out[k]) break;
      index[k] = 0;
    }
  }
}

// Channels last (the input's last axis not windowed, and long enough to be
// worth it): for each output position but that axis, the input offset of
// its channel 0 (or -1 in the padding) and the output's; the channels then
// run contiguous in the input, one window apart in the output. For one
// channel the order of positions is the row-major order each_run keeps, so
// a fold adds in the same order, to the same bits.
template <typename F>
bool each_channel_run(const Shape& in, const ir::Window& w, F f) {
  const std::size_t rank = in.size(), m = w.axes.size();
  if (rank < 2 || static_cast<std::size_t>(w.axes.back().axis) + 1 >= rank || in.back() < 4)
    return false;
  const Shape out = w.shape_of(in);
  if (element_count(out) == 0) return true;
  const std::int64_t channels = in.back();
  std::int64_t window = 1;
  for (const auto& a : w.axes) window *= a.size;
  Shape stride(rank, 1);
  for (std::size_t k = rank; k-- > 1;) stride[k - 1] = stride[k] * in[k];
  Shape window_of(rank, -1);
  for (std::size_t k = 0; k < m; ++k)
    window_of[static_cast<std::size_t>(w.axes[k].axis)] = static_cast<int>(k);
  // The positions: every output axis but the channels (rank - 1 of x's, then m).
  Shape space(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(rank - 1));
  space.insert(space.end(), out.begin() + static_cast<std::ptrdiff_t>(rank), out.end());
  Shape index(space.size(), 0);
  std::int64_t positions = element_count(space);
  for (std::int64_t p = 0; p < positions; ++p) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d + 1 < rank && offset >= 0; ++d) {
      const auto k = window_of[d];
      if (k < 0) {
        offset += index[d] * stride[d];
        continue;
      }
      const auto& a = w.axes[static_cast<std::size_t>(k)];
      const std::int64_t at = a.position(index[d], index[rank - 1 + static_cast<std::size_t>(k)]);
      offset = at >= 0 && at < in[d] ? offset + at * stride[d] : -1;
    }
    // Output: (prefix * channels + c) * window + j.
    std::int64_t prefix = 0, j = 0;
    for (std::size_t d = 0; d + 1 < rank; ++d) prefix = prefix * out[d] + index[d];
    for (std::size_t k = 0; k < m; ++k) j = j * w.axes[k].size + index[rank - 1 + k];
    if (offset >= 0) f(offset, prefix * channels * window + j, channels, window);
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < space[d]) break;
      index[d] = 0;
    }
  }
  return true;
}

// Whether every window lies inside the input (no padding): then a window
// writes each of its elements, and needs no fill first.
bool unpadded(const ir::Window& w) {
  for (const auto& a : w.axes)
    if (a.before != 0 || a.after != 0) return false;
  return true;
}

// Whether the windows cover each input element exactly once (a pool whose
// stride is its window, over sizes it divides): then a fold writes each
// element once, and needs no zeros first.
bool tiles_exactly(const Shape& in, const ir::Window& w) {
  for (const auto& a : w.axes)
    if (a.dilation != 1 || a.stride != a.size || a.before != 0 || a.after != 0 ||
        in[static_cast<std::size_t>(a.axis)] % a.size != 0)
      return false;
  return true;
}

}  // namespace

bool window(const Tensor& x, const ir::Window& w, Tensor& out) {
  if (!w.valid(x.rank())) return false;
  if (unpadded(w))
    out = Tensor::uninitialized(x.dtype(), w.shape_of(x.shape()));
  else if (!fill(x.dtype(), w.shape_of(x.shape()), w.value, out))
    return false;
  const Tensor c = x.contiguous() ? x : x.compact();
  const std::size_t size = dtype_size(x.dtype());
  const auto* from = static_cast<const char*>(c.raw());
  auto* to = static_cast<char*>(out.raw());
  if (size == 4) {  // f32 and i32: a typed copy, not a memcpy call per element
    const auto* f = reinterpret_cast<const std::uint32_t*>(from);
    auto* t = reinterpret_cast<std::uint32_t*>(to);
    if (each_channel_run(x.shape(), w,
                         [&](std::int64_t in_at, std::int64_t out_at, std::int64_t channels,
                             std::int64_t window) {
                           for (std::int64_t ch = 0; ch < channels; ++ch)
                             t[out_at + ch * window] = f[in_at + ch];
                         }))
      return true;
    each_run(x.shape(), w,
             [&](std::int64_t at, std::int64_t offset, std::int64_t step, std::int64_t first,
                 std::int64_t end) {
               for (std::int64_t j = first; j < end; ++j) t[at + j] = f[offset + j * step];
             });
    return true;
  }
  each_run(x.shape(), w,
           [&](std::int64_t at, std::int64_t offset, std::int64_t step, std::int64_t first,
               std::int64_t end) {
             for (std::int64_t j = first; j < end; ++j)
               std::memcpy(to + static_cast<std::size_t>(at + j) * size,
                           from + static_cast<std::size_t>(offset + j * step) * size, size);
           });
  return true;
}

bool window_channels_inner(const Tensor& x, const ir::Window& w, Tensor& out) {
  if (x.dtype() != DType::f32 || !w.valid(x.rank())) return false;
  const Shape shape = w.shape_of(x.shape());
  // The padding's value first where there is padding (each run then
  // copies over it).
  if (unpadded(w))
    out = Tensor::uninitialized(DType::f32, shape);
  else if (!fill(DType::f32, shape, w.value, out))
    return false;
  const Tensor c = x.contiguous() ? x : x.compact();
  const auto* f = static_cast<const float*>(c.raw());
  auto* t = static_cast<float*>(out.raw());
  // each_channel_run's output index is (prefix * channels + c) * window + j:
  // here it is (prefix * window + j) * channels + c, a contiguous run.
  return each_channel_run(
      x.shape(), w,
      [&](std::int64_t in_at, std::int64_t out_at, std::int64_t channels, std::int64_t window) {
        const std::int64_t prefix = out_at / (channels * window);
        const std::int64_t j = out_at % (channels * window);
        std::memcpy(t + (prefix * window + j) * channels, f + in_at,
                    static_cast<std::size_t>(channels) * sizeof(float));
      });
}

namespace {

// Adds each window element into its place in `to`, in each_run's (or
// each_channel_run's) order; with Once (windows that tile the input
// exactly once) a place starts at 0 without reading it: 0 + v, so a -0
// becomes +0 as the sum of zeros and it does.
template <bool Once>
void fold_into(const Shape& like, const ir::Window& w, const float* from, float* to) {
  const auto add = [to](std::int64_t at, float v) { to[at] = (Once ? 0.0f : to[at]) + v; };
  if (each_channel_run(
          like, w,
          [&](std::int64_t in_at, std::int64_t out_at, std::int64_t channels, std::int64_t window) {
            for (std::int64_t ch = 0; ch < channels; ++ch)
              add(in_at + ch, from[out_at + ch * window]);
          }))
    return;
  each_run(like, w,
           [&](std::int64_t at, std::int64_t offset, std::int64_t step, std::int64_t first,
               std::int64_t end) {
             for (std::int64_t j = first; j < end; ++j) add(offset + j * step, from[at + j]);
           });
}

}  // namespace

bool window_fold(const Tensor& values, const Shape& like, const ir::Window& w, Tensor& out) {
  if (values.dtype() != DType::f32 || !w.valid(static_cast<std::int64_t>(like.size())) ||
      values.shape() != w.shape_of(like))
    return false;
  const Tensor c = values.contiguous() ? values : values.compact();
  const auto* from = static_cast<const float*>(c.raw());
  if (tiles_exactly(like, w)) {  // each element written once: no zeros first
    out = Tensor::uninitialized(DType::f32, like);
    fold_into<true>(like, w, from, static_cast<float*>(out.raw()));
    return true;
  }
  if (!fill(DType::f32, like, 0.0, out)) return false;
  fold_into<false>(like, w, from, static_cast<float*>(out.raw()));
  return true;
}

}  // namespace ss::runtime::fast
