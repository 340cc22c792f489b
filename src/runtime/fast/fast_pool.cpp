// max_pool and its gradient as one pass over the windows each: no window
// tensor made, no mask. A position's windows are walked in the order the
// composition flattens them (the first windowed axis outermost), a run of
// channels at a time where the last axis isn't windowed.
#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <vector>

#include "runtime/core/helper_threads.hpp"
#include "runtime/fast/fast_loops.hpp"
#include "runtime/fast/fast_ops.hpp"
#include "support/inline_vector.hpp"

namespace ss::runtime::fast {
namespace {

typedef float F4 __attribute__((vector_size(16)));
typedef std::int32_t I4 __attribute__((vector_size(16)));

struct Pool {
  Shape in, out;
  Shape in_strides;
  std::int64_t run = 1;        // channels per step: the last axis when no window crosses it
  std::int64_t positions = 0;  // out.size() / run
  std::int64_t window = 1;     // elements per window
  support::InlineVector<ir::WindowAxis, 4> axes;
  Shape windowed;  // flags
  double value = 0;
  float pad = 0;

  bool make(const Tensor& x, const ir::Window& w) {
    if (x.dtype() != DType::f32 || !w.valid(x.rank())) return false;
    in = x.shape();
    out = in;
    axes = w.axes;
    windowed.assign(in.size(), 0);
    for (const auto& a : axes) {
      out[static_cast<std::size_t>(a.axis)] = a.count(in[static_cast<std::size_t>(a.axis)]);
      windowed[static_cast<std::size_t>(a.axis)] = true;
      window *= a.size;
    }
    in_strides.assign(in.size(), 1);
    for (std::size_t d = in.size(); d-- > 1;) in_strides[d - 1] = in_strides[d] * in[d];
    if (!windowed.back()) run = in.back();
    positions = run == 0 ? 0 : element_count(out) / run;
    value = w.value;
    pad = static_cast<float>(w.value);
    if (axes.size() > 8) return false;
    make_inner();
    return true;
  }

  // Each window element's offset from its window's first element, for a
  // window wholly inside x (most are).
  std::vector<std::int64_t> inner;
  void make_inner() {
    inner.resize(static_cast<std::size_t>(window));
    for (std::int64_t e = 0; e < window; ++e) {
      std::int64_t rest = e, off = 0;
      for (std::size_t a = axes.size(); a-- > 0;) {
        off += rest % axes[a].size * axes[a].dilation *
               in_strides[static_cast<std::size_t>(axes[a].axis)];
        rest /= axes[a].size;
      }
      inner[static_cast<std::size_t>(e)] = off;
    }
  }

  // The offsets in x of position p's window elements (-1: padding).
  void offsets(std::int64_t p, std::vector<std::int64_t>& at) const {
    const std::size_t rank = out.size() - (windowed.back() ? 0 : 1);  // the run apart
    std::int64_t base = 0;
    bool inside = true;
    std::int64_t start[8];
    std::size_t k = axes.size();
    for (std::size_t d = rank; d-- > 0;) {
      const std::int64_t i = p % out[d];
      p /= out[d];
      if (windowed[d]) {
        const auto& a = axes[--k];
        start[k] = i * a.stride - a.before;
        inside = inside && start[k] >= 0 && start[k] + (a.size - 1) * a.dilation < in[d];
        base += start[k] * in_strides[d];
      } else {
        base += i * in_strides[d];
      }
    }
    at.resize(static_cast<std::size_t>(window));
    if (inside) {
      for (std::int64_t e = 0; e < window; ++e)
        at[static_cast<std::size_t>(e)] = base + inner[static_cast<std::size_t>(e)];
      return;
    }
    for (std::int64_t e = 0; e < window; ++e) {
      std::int64_t rest = e, off = base;
      bool in_x = true;
      for (std::size_t a = axes.size(); a-- > 0;) {
        const std::int64_t j = rest % axes[a].size * axes[a].dilation;
        rest /= axes[a].size;
        const auto d = static_cast<std::size_t>(axes[a].axis);
        if (start[a] + j < 0 || start[a] + j >= in[d]) in_x = false;
        off += j * in_strides[d];
      }
      at[static_cast<std::size_t>(e)] = in_x ? off : -1;
    }
  }

  const float* element(const float* x, std::int64_t off, const float* padding) const {
    return off < 0 ? padding : x + off;
  }

  // Each channel's first maximum over position p's windows (max_element's:
  // a later element only where strictly greater), and, given `which`, the
  // window element that holds it.
  void first_max(const float* x, const std::vector<std::int64_t>& at, const float* padding,
                 float* __restrict best, std::int32_t* __restrict which) const {
    const float* v = element(x, at[0], padding);
    for (std::int64_t c = 0; c < run; ++c) best[c] = v[c];
    if (which)
      for (std::int64_t c = 0; c < run; ++c) which[c] = 0;
    for (std::int64_t e = 1; e < window; ++e) {
      const float* __restrict u = element(x, at[static_cast<std::size_t>(e)], padding);
      const auto who = static_cast<std::int32_t>(e);
      if (!which) {
        for (std::int64_t c = 0; c < run; ++c) best[c] = best[c] < u[c] ? u[c] : best[c];
        continue;
      }
      std::int64_t c = 0;
      for (; c + 4 <= run; c += 4) {  // four lanes blended by mask: no branch to mispredict
        F4 b, x4;
        I4 w;
        std::memcpy(&b, best + c, sizeof b);
        std::memcpy(&x4, u + c, sizeof x4);
        std::memcpy(&w, which + c, sizeof w);
        const I4 take = b < x4;
        b = reinterpret_cast<F4>((reinterpret_cast<I4>(x4) & take) |
                                 (reinterpret_cast<I4>(b) & ~take));
        w = ((I4{} + who) & take) | (w & ~take);
        std::memcpy(best + c, &b, sizeof b);
        std::memcpy(which + c, &w, sizeof w);
      }
      for (; c < run; ++c) {
        const bool take = best[c] < u[c];
        best[c] = take ? u[c] : best[c];
        which[c] = take ? who : which[c];
      }
    }
  }
};

// Whether `p` was made for x's shape and window `w`.
bool made_for(const Pool& p, const Tensor& x, const ir::Window& w) {
  if (p.in != x.shape() || p.value != w.value || p.axes.size() != w.axes.size()) return false;
  for (std::size_t k = 0; k < w.axes.size(); ++k)
    if (std::memcmp(&p.axes[k], &w.axes[k], sizeof(ir::WindowAxis)) != 0) return false;
  return true;
}

// The pool for x and w, remembered on the thread (the last 8): a steady
// call makes none.
const Pool* pool_for(const Tensor& x, const ir::Window& w) {
  thread_local std::array<std::optional<Pool>, 8> pools;
  thread_local std::size_t next = 0;
  for (const auto& p : pools)
    if (p && made_for(*p, x, w)) return &*p;
  Pool p;
  if (!p.make(x, w)) return nullptr;
  auto& kept = pools[next];
  next = (next + 1) % pools.size();
  kept = std::move(p);
  return &*kept;
}

// A thread's offsets and rows, kept between calls.
struct Rows {
  std::vector<std::int64_t> at;
  std::vector<float> padding, best;
  std::vector<std::int32_t> which;
  static Rows& of_thread(const Pool& p) {
    thread_local Rows rows;
    rows.padding.assign(static_cast<std::size_t>(p.run), p.pad);
    rows.best.resize(static_cast<std::size_t>(p.run));
    rows.which.resize(static_cast<std::size_t>(p.run));
    return rows;
  }
};

}  // namespace

bool max_pool(const Tensor& x, const ir::Window& w, Tensor& out, int threads) {
  const Pool* made = pool_for(x, w);
  if (!made) return false;
  const Pool& p = *made;
  const Tensor xc = x.compact();
  Tensor result = Tensor::uninitialized(DType::f32, p.out);
  const auto* xs = static_cast<const float*>(xc.raw());
  auto* ys = static_cast<float*>(result.raw());
  const std::int64_t per = std::max<std::int64_t>(1, p.run * p.window);
  for_rows(p.positions, std::max<std::int64_t>(1, kMinElements / per), threads,
           [&](std::int64_t from, std::int64_t to) {
             Rows& r = Rows::of_thread(p);
             for (std::int64_t q = from; q < to; ++q) {
               p.offsets(q, r.at);
               p.first_max(xs, r.at, r.padding.data(), ys + q * p.run, nullptr);
             }
           });
  out = std::move(result);
  return true;
}

bool max_pool_grad(const Tensor& x, const Tensor& dy, const ir::Window& w, Tensor& dx,
                   int threads) {
  const Pool* made = pool_for(x, w);
  if (!made || dy.dtype() != DType::f32 || dy.shape() != made->out) return false;
  const Pool& p = *made;
  const Tensor xc = x.compact(), gc = dy.compact();
  Tensor result = Tensor::zeros(DType::f32, p.in);
  const auto* xs = static_cast<const float*>(xc.raw());
  const auto* gs = static_cast<const float*>(gc.raw());
  auto* dxs = static_cast<float*>(result.raw());
  // Windows overlap only within one index of an axis no window crosses:
  // split along the first axis when it is such (and not the channel run).
  const bool split = !p.windowed[0] && p.out.size() > 1;
  const std::int64_t rows = split ? p.out[0] : 1;
  const std::int64_t per_row = rows == 0 ? 0 : p.positions / rows;
  for_rows(rows, 1, split ? threads : 1, [&](std::int64_t from, std::int64_t to) {
    Rows& r = Rows::of_thread(p);
    std::vector<std::int64_t>& at = r.at;
    std::vector<std::int32_t>& which = r.which;
    for (std::int64_t q = from * per_row; q < to * per_row; ++q) {
      p.offsets(q, at);
      p.first_max(xs, at, r.padding.data(), r.best.data(), which.data());
      const float* g = gs + q * p.run;
      for (std::int64_t c = 0; c < p.run; ++c) {
        const std::int64_t off = at[static_cast<std::size_t>(which[static_cast<std::size_t>(c)])];
        if (off >= 0) dxs[off + c] += g[c];
      }
    }
  });
  dx = std::move(result);
  return true;
}

}  // namespace ss::runtime::fast
