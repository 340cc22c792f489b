// Typed reads of a node's attributes (ir/ops.def names which fields each op
// uses), so no executor decodes Node's catch-all fields its own way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.hpp"
#include "support/inline_vector.hpp"
#include "types/window_size.hpp"

namespace ss::ir {

// The part of one axis a slice keeps, an index takes, or a place fills
// (place: the slice's or the index's it reverses).
struct AxisPart {
  std::int64_t axis = 0;
  bool index = false;      // one position, `start`; the axis goes (an index) or comes back
  std::int64_t start = 0;  // an index: negative counts from the axis' end
  std::int64_t end = 0;    // exclusive; counted back from the axis' end when `from_end`
  bool from_end = false;

  // [first, last) in an axis of `size`; an index's position resolved.
  std::int64_t first(std::int64_t size) const { return index && start < 0 ? start + size : start; }
  std::int64_t last(std::int64_t size) const {
    return index ? first(size) + 1 : from_end ? size - end : end;
  }
  // Whether the part lies within an axis of `size` (else the reference's
  // RangeError).
  bool fits(std::int64_t size) const {
    return first(size) >= 0 && first(size) <= last(size) && last(size) <= size &&
           (!index || first(size) < size);
  }
};

// For slice, index and place.
inline AxisPart axis_part(const Node& n) {
  AxisPart p;
  p.axis = n.axes.at(0);
  if (n.op == Op::index || (n.op == Op::place && n.ints.empty())) {
    p.index = true;
    p.start = static_cast<std::int64_t>(n.number);
    return p;
  }
  p.start = n.ints.at(0);
  p.end = n.ints.at(1);
  p.from_end = n.keep;
  return p;
}

struct PadWidths {
  std::int64_t axis = 0, before = 0, after = 0;
  double value = 0;
};

inline PadWidths pad_of(const Node& n) {
  return {n.axes.at(0), n.ints.at(0), n.ints.at(1), n.number};
}

// random: the draws' kind, their two parameters, seed and stream.
struct RandomDraw {
  std::string kind;     // "normal" or "uniform"
  double a = 0, b = 1;  // mean and std, or low and high
  std::int64_t seed = 0, stream = 0;
};

inline RandomDraw random_of(const Node& n) {
  RandomDraw r;
  r.kind = n.name;
  if (n.values.size() > 0) r.a = n.values[0];
  if (n.values.size() > 1) r.b = n.values[1];
  if (n.ints.size() > 0) r.seed = n.ints[0];
  if (n.ints.size() > 1) r.stream = n.ints[1];
  return r;
}

// window and window_fold: per windowed axis, its window.
struct WindowAxis {
  std::int64_t axis = 0, size = 1, stride = 1, dilation = 1, before = 0, after = 0;

  // How many windows fit an axis of `length` (padded); 0 when none does:
  // the checker's formula (types/window_size.hpp).
  std::int64_t count(std::int64_t length) const {
    return types::WindowSize{length, size, stride, dilation, before, after}.result();
  }
  // Where window `o`'s element `j` lies in the unpadded axis (outside it: padding).
  std::int64_t position(std::int64_t o, std::int64_t j) const {
    return o * stride + j * dilation - before;
  }
  bool valid() const {
    return size >= 1 && stride >= 1 && dilation >= 1 && before >= 0 && after >= 0;
  }
};

struct Window {
  support::InlineVector<WindowAxis, 4> axes;  // (kept inside: a steady call allocates nothing)
  double value = 0;                           // the padding's

  bool valid(std::int64_t rank) const {
    for (std::size_t k = 0; k < axes.size(); ++k)
      if (!axes[k].valid() || axes[k].axis < 0 || axes[k].axis >= rank ||
          (k > 0 && axes[k].axis <= axes[k - 1].axis))
        return false;
    return !axes.empty();
  }
  // The windowed shape of `shape`: each windowed axis its count of
  // windows, each window's size appended.
  template <typename Shape>  // std::vector<std::int64_t> or runtime::Shape
  Shape shape_of(Shape shape) const {
    for (const auto& a : axes) {
      auto& n = shape[static_cast<std::size_t>(a.axis)];
      n = a.count(n);
    }
    for (const auto& a : axes) shape.push_back(a.size);
    return shape;
  }
};

// The 2-D convolution a zero-padded window over axes 1 and 2 of
// channels-last images [n h w c] is (lower/lower_windows.cpp's conv), as
// oneDNN and cuDNN take it; none for another window.
struct Conv2d {
  std::int64_t n = 0, h = 0, w = 0, c = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  std::int64_t stride[2] = {1, 1}, dilation[2] = {1, 1}, before[2] = {0, 0}, after[2] = {0, 0};
};
template <typename Shape>  // std::vector<std::int64_t> or runtime::Shape
std::optional<Conv2d> conv2d_of(const Shape& x, const Window& w) {
  if (x.size() != 4 || !w.valid(4) || w.axes.size() != 2 || w.axes[0].axis != 1 ||
      w.axes[1].axis != 2 || w.value != 0)
    return std::nullopt;
  const Shape out = w.shape_of(x);
  Conv2d c{x[0], x[1], x[2], x[3], w.axes[0].size, w.axes[1].size, out[1], out[2]};
  for (std::size_t k = 0; k < 2; ++k) {
    c.stride[k] = w.axes[k].stride;
    c.dilation[k] = w.axes[k].dilation;
    c.before[k] = w.axes[k].before;
    c.after[k] = w.axes[k].after;
  }
  return c;
}

inline Window window_of(const Node& n) {
  Window w;
  w.value = n.number;
  for (std::size_t k = 0; k < n.axes.size(); ++k) {
    const auto at = [&](std::size_t i) { return n.ints.at(5 * k + i); };
    w.axes.push_back({n.axes[k], at(0), at(1), at(2), at(3), at(4)});
  }
  return w;
}

// loop: its inputs are `carries` carried values, `stacked` values sliced
// along `axes` (one position per step, every one the same length), then the
// free values every step reads whole. The body's inputs are in that order
// (each stacked one without its axis); its outputs are the carries' next
// values, then the per-step results, each stacked along a new axis at its
// `result_axes` position. `reverse` runs the last position first (a
// per-step result still lands at its step's position).
// ints: carries, stacked, reverse, axes..., result_axes...
struct LoopShape {
  std::size_t carries = 0, stacked = 0;
  bool reverse = false;
  std::vector<std::int64_t> axes, result_axes;

  std::size_t frees(const Node& n) const { return n.in.size() - carries - stacked; }
};

inline LoopShape loop_of(const Node& n) {
  LoopShape s;
  s.carries = static_cast<std::size_t>(n.ints.at(0));
  s.stacked = static_cast<std::size_t>(n.ints.at(1));
  s.reverse = n.ints.at(2) != 0;
  const auto axes_end = n.ints.begin() + 3 + static_cast<std::ptrdiff_t>(s.stacked);
  s.axes.assign(n.ints.begin() + 3, axes_end);
  s.result_axes.assign(axes_end, n.ints.end());
  return s;
}

}  // namespace ss::ir
