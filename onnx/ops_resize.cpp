// Resize, axis by axis: each output position's source coordinate (ONNX's
// coordinate_transformation_mode), then its taps: one for nearest, two for
// linear, four for cubic, each a gather of the input at positions computed
// at import, weighted by constants computed at import. So every mode is
// ONNX's own arithmetic, nothing approximated.
#include <cmath>

#include "onnx/ops.hpp"
#include "onnx/ops_common.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

struct Taps {
  std::vector<std::vector<std::int64_t>> index;  // [tap][output position]
  std::vector<std::vector<double>> weight;       // empty for nearest
  std::vector<double> outside;                   // 1 where the position is extrapolated
};

double source_coordinate(Translator& t, const std::string& mode, double x, std::int64_t in,
                         std::int64_t out, double scale, double start, double end) {
  if (mode == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  // ONNX's length_resized is in * scale, not rounded (out itself when sizes were given).
  const double resized = static_cast<double>(in) * scale;
  if (mode == "align_corners")
    return out == 1 ? 0.0 : x * static_cast<double>(in - 1) / (resized - 1);
  if (mode == "asymmetric") return x / scale;
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (mode == "tf_crop_and_resize")
    return out > 1
               ? start * static_cast<double>(in - 1) +
                     x * (end - start) * static_cast<double>(in - 1) / static_cast<double>(out - 1)
               : 0.5 * (start + end) * static_cast<double>(in - 1);
  t.unsupported("E2005", "coordinate_transformation_mode `" + mode + "`");
}

std::int64_t nearest(Translator& t, const std::string& mode, double x) {
  if (mode == "round_prefer_floor")
    return x == std::floor(x) + 0.5 ? static_cast<std::int64_t>(std::floor(x))
                                    : static_cast<std::int64_t>(std::round(x));
  if (mode == "round_prefer_ceil") return static_cast<std::int64_t>(std::round(x));
  if (mode == "floor") return static_cast<std::int64_t>(std::floor(x));
  if (mode == "ceil") return static_cast<std::int64_t>(std::ceil(x));
  t.unsupported("E2005", "nearest_mode `" + mode + "`");
}

std::vector<double> cubic_weights(double r, double a) {
  auto w = [&](double d) {
    d = std::fabs(d);
    if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
    if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
    return 0.0;
  };
  return {w(r + 1), w(r), w(1 - r), w(2 - r)};
}

Taps taps_of(Translator& t, std::int64_t in, std::int64_t out, double scale, double start,
             double end) {
  const std::string mode = t.string_attr("mode", "nearest");
  const std::string transform = t.string_attr("coordinate_transformation_mode", "half_pixel");
  const std::string nearest_mode = t.string_attr("nearest_mode", "round_prefer_floor");
  const double a = t.float_attr("cubic_coeff_a", -0.75f);
  const bool exclude = t.int_attr("exclude_outside", 0) != 0;
  const std::size_t n = mode == "nearest" ? 1 : mode == "linear" ? 2 : mode == "cubic" ? 4 : 0;
  if (n == 0) t.unsupported("E2005", "mode `" + mode + "`");
  Taps taps;
  taps.index.assign(n, {});
  if (mode != "nearest") taps.weight.assign(n, {});
  auto clamp = [&](std::int64_t i) {
    return std::min<std::int64_t>(std::max<std::int64_t>(i, 0), in - 1);
  };
  for (std::int64_t o = 0; o < out; ++o) {
    const double x =
        source_coordinate(t, transform, static_cast<double>(o), in, out, scale, start, end);
    // A coordinate past int64 (align_corners of an axis that resizes to
    // one, a huge roi) can't be cast to a position: undefined behaviour.
    if (!std::isfinite(x) || std::fabs(x) > 1e15)
      t.unsupported("E2008", "its coordinate transformation maps output position " +
                                 std::to_string(o) + " to " + std::to_string(x) +
                                 ", which isn't a position of the input");
    const bool outside =
        transform == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(in - 1));
    taps.outside.push_back(outside ? 1.0 : 0.0);
    if (mode == "nearest") {
      taps.index[0].push_back(clamp(nearest(t, nearest_mode, x)));
      continue;
    }
    const double base = std::floor(x), r = x - base;
    const auto b = static_cast<std::int64_t>(base);
    std::vector<double> w = mode == "linear" ? std::vector<double>{1 - r, r} : cubic_weights(r, a);
    const std::int64_t first = mode == "linear" ? b : b - 1;
    if (exclude) {
      double total = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const std::int64_t i = first + static_cast<std::int64_t>(k);
        if (i < 0 || i >= in) w[k] = 0;
        total += w[k];
      }
      for (auto& v : w) v = total != 0 ? v / total : 0;
    }
    for (std::size_t k = 0; k < n; ++k) {
      taps.index[k].push_back(clamp(first + static_cast<std::int64_t>(k)));
      taps.weight[k].push_back(outside ? 0.0 : w[k]);
    }
  }
  return taps;
}

void resize(Translator& t) {
  const Value& x = t.need(0);
  if (x.onnx_type != TP::FLOAT)
    t.unsupported("E2006",
                  "Resize of " + onnx_type_name(x.onnx_type) + " isn't supported (float32 only)");
  const std::size_t r = x.rank();
  const auto to = t.out_shape();
  std::vector<double> scales(r, 1.0), starts(r, 0.0), ends(r, 1.0);
  if (const Value* s = t.input(2); s && s->count() > 0) {
    if (!s->constant) constant_ints(t, 2, "scales");  // E2007
    if (s->count() != static_cast<std::int64_t>(r))
      t.unsupported("E2008", "its scales have " + std::to_string(s->count()) +
                                 " values; the input has " + std::to_string(r) + " axes");
    for (std::size_t i = 0; i < r; ++i) scales[i] = s->constant->at(i);
  } else {
    for (std::size_t i = 0; i < r; ++i)
      scales[i] = static_cast<double>(to[i]) / static_cast<double>(x.shape[i]);
  }
  // An empty axis resized to a full one made a scale of infinity and source
  // coordinates of NaN, cast to positions (fuzz_onnx's 24th find).
  for (std::size_t i = 0; i < r; ++i) {
    if ((x.shape[i] == 0) != (to[i] == 0))
      t.unsupported("E2008", "it resizes axis " + std::to_string(i) + " from " +
                                 std::to_string(x.shape[i]) + " to " + std::to_string(to[i]) +
                                 ": an empty axis stays empty");
    if (!std::isfinite(scales[i]) || !(scales[i] > 0))
      t.unsupported("E2008", "its scale along axis " + std::to_string(i) + ", " +
                                 std::to_string(scales[i]) + ", isn't finite and above 0");
  }
  if (t.string_attr("coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize") {
    const Value* roi = t.input(1);
    if (!roi || !roi->constant)
      t.unsupported("E2007", "tf_crop_and_resize needs its roi known at import");
    if (roi->count() != 2 * static_cast<std::int64_t>(r))
      t.unsupported("E2008", "its roi has " + std::to_string(roi->count()) +
                                 " values; the input's " + std::to_string(r) + " axes need " +
                                 std::to_string(2 * r));
    for (std::size_t i = 0; i < r; ++i) {
      starts[i] = roi->constant->at(i);
      ends[i] = roi->constant->at(r + i);
      if (!std::isfinite(starts[i]) || !std::isfinite(ends[i]))
        t.unsupported("E2008", "its roi along axis " + std::to_string(i) + " isn't finite");
    }
  }
  const double extrapolation = t.float_attr("extrapolation_value", 0.0f);
  std::string e = t.operand(x);
  std::vector<std::int64_t> shape = x.shape;
  for (std::size_t axis = 0; axis < r; ++axis) {
    if (to[axis] == shape[axis] && scales[axis] == 1.0 && starts[axis] == 0.0 && ends[axis] == 1.0)
      continue;
    const Taps taps = taps_of(t, shape[axis], to[axis], scales[axis], starts[axis], ends[axis]);
    std::vector<std::int64_t> weight_shape(r, 1);
    weight_shape[axis] = to[axis];
    std::string sum;
    const std::string source = t.let(e);
    for (std::size_t k = 0; k < taps.index.size(); ++k) {
      std::string tap = gather_axis(t, source, shape, "f32", axis, taps.index[k]);
      if (!taps.weight.empty())
        tap = tap + " * " + frozen_floats(t, taps.weight[k], weight_shape, "f32");
      sum = sum.empty() ? tap : sum + " + " + tap;
    }
    bool any_outside = false;
    for (double v : taps.outside) any_outside = any_outside || v != 0;
    if (any_outside && extrapolation != 0) {
      std::vector<double> fill;
      for (double v : taps.outside) fill.push_back(v * extrapolation);
      sum = sum + " + " + frozen_floats(t, fill, weight_shape, "f32");
    }
    if (any_outside &&
        taps.weight.empty()) {  // nearest: outside positions take the extrapolation value
      std::vector<double> keep;
      for (double v : taps.outside) keep.push_back(1 - v);
      sum = "(" + sum + ") * " + frozen_floats(t, keep, weight_shape, "f32");
    }
    e = t.let(sum);
    shape[axis] = to[axis];
  }
  t.emit(e);
}

}  // namespace

void register_resize(std::map<std::string, Handler>& table) {
  table["Resize"] = resize;
}

}  // namespace ss::onnx_import
