// Windows and normalisations: Conv (channels last inside, its kernel
// permuted once at import when it is an initializer), MaxPool,
// AveragePool, the global pools, BatchNormalization (inference),
// LayerNormalization and InstanceNormalization.
#include <algorithm>
#include <cmath>

#include "onnx/folding.hpp"
#include "onnx/ops.hpp"
#include "onnx/ops_common.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

const char* const kLowest = "-3.4028234663852886e38";

std::string list(const std::vector<std::int64_t>& v);

struct Geometry {
  std::vector<std::int64_t> kernel, strides, dilations, begin, end, out;
  bool symmetric() const { return begin == end; }
};

Geometry geometry(Translator& t, const std::vector<std::int64_t>& in,
                  std::vector<std::int64_t> kernel, bool ceil_mode) {
  const std::size_t d = in.size();
  Geometry g;
  g.kernel = std::move(kernel);
  g.strides = t.ints_attr("strides");
  g.dilations = t.ints_attr("dilations");
  if (g.strides.empty()) g.strides.assign(d, 1);
  if (g.dilations.empty()) g.dilations.assign(d, 1);
  if (g.kernel.size() != d || g.strides.size() != d || g.dilations.size() != d)
    t.unsupported("E2008", "its kernel, strides or dilations don't give one size per spatial axis");
  for (std::size_t i = 0; i < d; ++i)
    if (g.kernel[i] < 1 || g.strides[i] < 1 || g.dilations[i] < 1)
      t.unsupported("E2008", "its kernel, strides and dilations need sizes of 1 or more");
  const std::string auto_pad = t.string_attr("auto_pad", "NOTSET");
  std::vector<std::int64_t> pads = t.ints_attr("pads");
  for (const std::int64_t p : pads)
    if (p < 0) t.unsupported("E2008", "its pads need counts of 0 or more");
  g.begin.assign(d, 0);
  g.end.assign(d, 0);
  for (std::size_t i = 0; i < d; ++i) {
    const std::int64_t span = (g.kernel[i] - 1) * g.dilations[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const std::int64_t out = (in[i] + g.strides[i] - 1) / g.strides[i];
      const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * g.strides[i] + span - in[i]);
      g.begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.end[i] = total - g.begin[i];
    } else if (auto_pad == "NOTSET" && !pads.empty()) {
      if (pads.size() != 2 * d)
        t.unsupported("E2008", "its pads don't give two sizes per spatial axis");
      g.begin[i] = pads[i];
      g.end[i] = pads[i + d];
    } else if (auto_pad != "NOTSET" && auto_pad != "VALID") {
      t.unsupported("E2005", "auto_pad `" + auto_pad + "`");
    }
    const std::int64_t room = in[i] + g.begin[i] + g.end[i] - span;
    if (room < 0) t.unsupported("E2008", "its window is larger than the padded input");
    std::int64_t out =
        (ceil_mode ? (room + g.strides[i] - 1) / g.strides[i] : room / g.strides[i]) + 1;
    if (ceil_mode && (out - 1) * g.strides[i] >= in[i] + g.begin[i]) --out;
    g.out.push_back(out);
  }
  // ONNX 1.12's inference counts ceil mode's windows without dropping one
  // that would start in the padding (fuzz_onnx's seventeenth find): the
  // windows counted here must be the ones it declares.
  const auto declared = t.out_shape();
  if (declared.size() != d + 2 || !std::equal(g.out.begin(), g.out.end(), declared.begin() + 2))
    t.unsupported("E2008", "its windows make " + list(g.out) +
                               " along its spatial axes; ONNX infers an output of " +
                               list(declared));
  return g;
}

std::string list(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + std::to_string(v[i]);
  return s + "]";
}

// Pads the spatial axes (first at `axis0`) explicitly with `value`, where
// the window's padding isn't what the builtin's symmetric padding gives.
std::string padded(const std::string& x, const Geometry& g, std::size_t axis0,
                   const std::string& value, std::vector<std::int64_t>* extra_end = nullptr) {
  std::string e = x;
  for (std::size_t i = 0; i < g.begin.size(); ++i) {
    const std::int64_t after = g.end[i] + (extra_end ? (*extra_end)[i] : 0);
    if (g.begin[i] == 0 && after == 0) continue;
    e = "pad(" + e + ", over=" + std::to_string(axis0 + i) +
        ", before=" + std::to_string(g.begin[i]) + ", after=" + std::to_string(after) +
        ", value=" + value + ")";
  }
  return e;
}

std::vector<std::int64_t> spatial(const Value& x) {
  return {x.shape.begin() + 2, x.shape.end()};
}

// NCHW to channels last: n c s... -> n s... c, and back.
std::vector<std::int64_t> to_last(std::size_t rank) {
  std::vector<std::int64_t> p = {0};
  for (std::size_t i = 2; i < rank; ++i) p.push_back(static_cast<std::int64_t>(i));
  p.push_back(1);
  return p;
}

std::string over_axes(std::size_t d, std::size_t first) {
  std::vector<std::int64_t> a;
  for (std::size_t i = 0; i < d; ++i) a.push_back(static_cast<std::int64_t>(first + i));
  return list(a);
}

// A conv's channels and bias against its kernel: ONNX's inference doesn't
// check them (fuzz_onnx's fourteenth find), and a program that doesn't check
// would be written. in_axis and out_axis: the kernel's axes of input and
// output channels.
void need_channels(Translator& t, const Value& x, const Value& w, std::int64_t groups,
                   std::size_t in_axis, std::size_t out_axis) {
  if (groups < 1 || !sizes_fit(x.shape[1], w.shape[in_axis] * groups))
    t.unsupported("E2008",
                  "its kernel takes " + std::to_string(w.shape[in_axis]) + " input channels" +
                      (groups == 1 ? "" : " a group, " + std::to_string(groups) + " groups") +
                      "; the input has " + std::to_string(x.shape[1]));
  if (w.shape[out_axis] >= 0 && w.shape[out_axis] % groups != 0)
    t.unsupported("E2008", "its kernel's output channels don't divide into its groups");
  if (const Value* b = t.input(2);
      b && (b->rank() != 1 || !sizes_fit(b->shape[0], w.shape[out_axis])))
    t.unsupported("E2008", "its bias needs the shape [" + std::to_string(w.shape[out_axis]) +
                               "], one value an output channel");
}

void conv(Translator& t) {
  const Value& x = t.need(0);
  const Value& w = t.need(1);
  if (x.onnx_type != TP::FLOAT || w.onnx_type != TP::FLOAT)
    t.unsupported("E2006",
                  "Conv of " + onnx_type_name(x.onnx_type) + " isn't supported (float32 only)");
  if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank())
    t.unsupported("E2008",
                  "Conv needs an input of 1-3 spatial axes (N C ...) and a kernel of its rank");
  const std::size_t d = x.rank() - 2;
  std::vector<std::int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  const Geometry g = geometry(t, spatial(x), kernel, false);
  const std::int64_t groups = t.int_attr("group", 1);
  need_channels(t, x, w, groups, 1, 0);
  // The kernel [Co Ci k...] as [k... Ci Co]: permuted once when it is a constant.
  std::vector<std::int64_t> kperm;
  for (std::size_t i = 2; i < w.rank(); ++i) kperm.push_back(static_cast<std::int64_t>(i));
  kperm.push_back(1);
  kperm.push_back(0);
  std::string k;
  if (w.constant && w.expr.empty()) {
    std::vector<std::int64_t> kshape;
    for (auto p : kperm) kshape.push_back(w.shape[static_cast<std::size_t>(p)]);
    const auto s = strides_of(w.shape);
    const Constant permuted =
        gather_flat(*w.constant, kshape, [&](const std::vector<std::int64_t>& i) {
          std::int64_t f = 0;
          for (std::size_t a = 0; a < i.size(); ++a)
            f += i[a] * s[static_cast<std::size_t>(kperm[a])];
          return f;
        });
    k = w.frozen ? t.operand([&] {
      Value v;
      v.constant = permuted;
      v.shape = permuted.shape;
      v.onnx_type = permuted.onnx_type;
      v.frozen = true;
      return v;
    }())
                 : t.param_operand(permuted, t.name_of(w), "permuted to [k... Cin Cout]");
  } else {
    k = transpose_expr(t.operand(w), kperm);
  }
  std::string xl = t.in_layout(x, to_last(x.rank()));
  std::string padding = list(g.begin);
  if (!g.symmetric()) {
    xl = padded(xl, g, 1, "0.0");
    padding = list(std::vector<std::int64_t>(d, 0));
  }
  std::string y =
      "conv(" + xl + ", " + k + ", over=" + over_axes(d, 1) + ", stride=" + list(g.strides) +
      ", padding=" + padding + ", dilation=" + list(g.dilations) +
      (groups != 1 ? ", groups=" + std::to_string(groups) : "") + ", out=" + list(g.out) + ")";
  if (const Value* b = t.input(2)) y = y + " + " + t.operand(*b);
  t.emit_in_layout(y, to_last(x.rank()));  // channels last, as the next op takes it
}

// ConvTranspose as the convolution it is the gradient of: the input with
// stride-1 zeros between its elements, padded by the kernel's span less the
// padding, against the kernel flipped with its channels swapped (done once
// at import when the kernel is an initializer).
void conv_transpose(Translator& t) {
  const Value& x = t.need(0);
  const Value& w = t.need(1);
  if (x.onnx_type != TP::FLOAT || w.onnx_type != TP::FLOAT)
    t.unsupported("E2006", "ConvTranspose of " + onnx_type_name(x.onnx_type) +
                               " isn't supported (float32 only)");
  if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank())
    t.unsupported(
        "E2008",
        "ConvTranspose needs an input of 1-3 spatial axes (N C ...) and a kernel of its rank");
  if (t.int_attr("group", 1) != 1)
    t.unsupported("E2005", "a ConvTranspose with groups isn't supported");
  const std::size_t d = x.rank() - 2;
  const auto in = spatial(x);
  std::vector<std::int64_t> kernel(w.shape.begin() + 2, w.shape.end());
  std::vector<std::int64_t> strides = t.ints_attr("strides"), dilations = t.ints_attr("dilations");
  std::vector<std::int64_t> out_pad = t.ints_attr("output_padding"), pads = t.ints_attr("pads");
  if (strides.empty()) strides.assign(d, 1);
  if (dilations.empty()) dilations.assign(d, 1);
  if (out_pad.empty()) out_pad.assign(d, 0);
  need_channels(t, x, w, 1, 0, 1);
  // Attributes of other lengths, and an output ONNX inferred with too few
  // axes from `output_shape`, were read past their ends (fuzz_onnx's
  // eleventh find, under AddressSanitizer).
  if (strides.size() != d || dilations.size() != d || out_pad.size() != d ||
      (!pads.empty() && pads.size() != 2 * d))
    t.unsupported("E2008",
                  "its strides, dilations, output padding or pads don't give their sizes per "
                  "spatial axis");
  for (std::size_t i = 0; i < d; ++i)
    if (kernel[i] < 1 || strides[i] < 1 || dilations[i] < 1 || out_pad[i] < 0 ||
        out_pad[i] >= std::max(strides[i], dilations[i]))
      t.unsupported("E2008",
                    "its kernel, strides and dilations need sizes of 1 or more, and its output "
                    "padding counts below its stride or dilation");
  for (const std::int64_t p : pads)
    if (p < 0) t.unsupported("E2008", "its pads need counts of 0 or more");
  std::vector<std::int64_t> begin(d, 0), end(d, 0);
  const std::string auto_pad = t.string_attr("auto_pad", "NOTSET");
  const auto out_shape = t.out_shape();
  if (out_shape.size() != x.rank())
    t.unsupported("E2008", "its output's shape, as ONNX infers it, has " +
                               std::to_string(out_shape.size()) + " axes, not " +
                               std::to_string(x.rank()));
  for (std::size_t i = 0; i < d; ++i) {
    const std::int64_t span = (kernel[i] - 1) * dilations[i] + 1;
    const std::int64_t full = strides[i] * (in[i] - 1) + out_pad[i] + span;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER" || t.has("output_shape")) {
      // ONNX's rule, a negative total (an output larger than the full one) included.
      const std::int64_t total = full - out_shape[2 + i];
      const std::int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);  // floor, as numpy's
      begin[i] = auto_pad == "SAME_UPPER" ? half : total - half;
      end[i] = total - begin[i];
    } else if (!pads.empty()) {
      begin[i] = pads[i];
      end[i] = pads[i + d];
    }
  }
  // What the translation makes must be the output ONNX declares (fuzz_onnx's
  // nineteenth find: a batch of 61 declared as 1).
  std::vector<std::int64_t> made = {x.shape[0], w.shape[1]};
  for (std::size_t i = 0; i < d; ++i)
    made.push_back(strides[i] * (in[i] - 1) + out_pad[i] + (kernel[i] - 1) * dilations[i] + 1 -
                   begin[i] - end[i]);
  if (made != out_shape)
    t.unsupported("E2008",
                  "it makes an output of " + list(made) + "; ONNX infers " + list(out_shape));
  // The kernel [Ci Co k...] as [k... Ci Co], flipped along k.
  std::vector<std::int64_t> kshape(kernel);
  kshape.push_back(w.shape[0]);
  kshape.push_back(w.shape[1]);
  auto kernel_at = [&](const std::vector<std::int64_t>& i) {
    const auto s = strides_of(w.shape);
    std::int64_t f = i[d] * s[0] + i[d + 1] * s[1];
    for (std::size_t a = 0; a < d; ++a) f += (kernel[a] - 1 - i[a]) * s[2 + a];
    return f;
  };
  std::string k;
  if (w.constant && w.expr.empty() && !w.frozen) {
    k = t.param_operand(gather_flat(*w.constant, kshape, kernel_at), t.name_of(w),
                        "flipped and permuted to [k... Cin Cout]");
  } else {
    std::vector<std::int64_t> perm;
    for (std::size_t i = 2; i < w.rank(); ++i) perm.push_back(static_cast<std::int64_t>(i));
    perm.push_back(0);
    perm.push_back(1);
    k = transpose_expr(t.operand(w), perm);
    std::vector<std::int64_t> shape = kshape;
    for (std::size_t a = 0; a < d; ++a) {
      std::vector<std::int64_t> ids;
      for (std::int64_t j = kernel[a] - 1; j >= 0; --j) ids.push_back(j);
      k = gather_axis(t, k, shape, "f32", a, ids);
    }
  }
  // The input, channels last, with zeros between its elements.
  std::string z = t.in_layout(x, to_last(x.rank()));
  std::vector<std::int64_t> zshape = {x.shape[0]};
  for (std::size_t i = 0; i < d; ++i) zshape.push_back(in[i]);
  zshape.push_back(x.shape[1]);
  for (std::size_t a = 0; a < d; ++a) {
    const std::int64_t s = strides[a];
    if (s == 1) continue;
    const std::size_t axis = 1 + a;
    auto names = axis_names(zshape.size());
    std::vector<std::string> spread = names;
    spread.insert(spread.begin() + static_cast<std::ptrdiff_t>(axis) + 1, "1");
    std::vector<std::string> joined = names;
    joined[axis] = "(" + names[axis] + " s)";
    std::vector<std::string> with_s = names;
    with_s.insert(with_s.begin() + static_cast<std::ptrdiff_t>(axis) + 1, "s");
    z = "rearrange(pad(rearrange(" + z + ", " + join(names) + " -> " + join(spread) +
        "), over=" + std::to_string(axis + 1) + ", after=" + std::to_string(s - 1) +
        ", value=0.0), " + join(with_s) + " -> " + join(joined) + ")";
    std::vector<std::int64_t> grown = zshape;
    grown[axis] = zshape[axis] * s;
    std::vector<std::int64_t> ids;
    for (std::int64_t j = 0; j < (zshape[axis] - 1) * s + 1; ++j) ids.push_back(j);
    z = gather_axis(t, t.let(z), grown, "f32", axis, ids);
    zshape[axis] = (zshape[axis] - 1) * s + 1;
  }
  // Padding: the kernel's span less the ONNX padding (negative: a crop).
  std::vector<std::int64_t> out;
  for (std::size_t a = 0; a < d; ++a) {
    const std::size_t axis = 1 + a;
    const std::int64_t span = (kernel[a] - 1) * dilations[a];
    const std::int64_t before = span - begin[a], after = span - end[a] + out_pad[a];
    std::int64_t lo = std::max<std::int64_t>(0, -before),
                 hi = zshape[axis] - std::max<std::int64_t>(0, -after);
    if (lo > 0 || hi < zshape[axis]) {
      std::vector<std::int64_t> ids;
      for (std::int64_t j = lo; j < hi; ++j) ids.push_back(j);
      z = gather_axis(t, t.let(z), zshape, "f32", axis, ids);
      zshape[axis] = hi - lo;
    }
    if (before > 0 || after > 0)
      z = "pad(" + z + ", over=" + std::to_string(axis) +
          ", before=" + std::to_string(std::max<std::int64_t>(0, before)) +
          ", after=" + std::to_string(std::max<std::int64_t>(0, after)) + ", value=0.0)";
    zshape[axis] += std::max<std::int64_t>(0, before) + std::max<std::int64_t>(0, after);
    out.push_back(zshape[axis] - span);
  }
  std::string y = "conv(" + z + ", " + k + ", over=" + over_axes(d, 1) +
                  ", stride=" + list(std::vector<std::int64_t>(d, 1)) +
                  ", padding=" + list(std::vector<std::int64_t>(d, 0)) +
                  ", dilation=" + list(dilations) + ", out=" + list(out) + ")";
  if (const Value* b = t.input(2)) y = y + " + " + t.operand(*b);
  t.emit_in_layout(y, to_last(x.rank()));
}

template <bool Max>
void pool(Translator& t) {
  const Value& x = t.need(0);
  if (x.dtype() != "f32")
    t.unsupported("E2006", t.node().op_type() + " of " + onnx_type_name(x.onnx_type) +
                               " isn't supported (float32 only)");
  if (x.rank() < 3) t.unsupported("E2008", "a pool needs spatial axes (N C ...)");
  if (t.node().output_size() > 1 && !t.node().output(1).empty())
    t.unsupported("E2005", "MaxPool's Indices output isn't supported");
  const std::size_t d = x.rank() - 2;
  const bool ceil_mode = t.int_attr("ceil_mode", 0) != 0;
  const Geometry g = geometry(t, spatial(x), t.ints_attr("kernel_shape"), ceil_mode);
  bool dilated = false;
  for (auto dl : g.dilations) dilated = dilated || dl != 1;
  if (dilated && !Max) t.unsupported("E2005", "an average pool with dilations isn't supported");
  // Windows that ceil mode adds reach past the padding: pad them too.
  std::vector<std::int64_t> extra(d, 0);
  const auto in = spatial(x);
  for (std::size_t i = 0; i < d; ++i)
    extra[i] = std::max<std::int64_t>(
        0, (g.out[i] - 1) * g.strides[i] + g.kernel[i] - (in[i] + g.begin[i] + g.end[i]));
  const std::string window =
      "window=" + list(g.kernel) + ", stride=" + list(g.strides) + ", out=" + list(g.out) + ")";
  const std::string over = ", over=" + over_axes(d, 1) + ", ";
  // Channels last: the spatial axes are 1..d.
  const auto cl = to_last(x.rank());
  const std::string xs = t.in_layout(x, cl);
  if (Max && dilated) {
    // The maximum of the window's shifted, strided views, one per element.
    const std::string xp = t.let(padded(xs, g, 1, kLowest, &extra));
    std::vector<std::int64_t> shape = {x.shape[0]};
    for (std::size_t i = 0; i < d; ++i) shape.push_back(in[i] + g.begin[i] + g.end[i] + extra[i]);
    shape.push_back(x.shape[1]);
    std::vector<std::int64_t> offset(d, 0);
    std::string e;
    for (;;) {
      std::string v = xp;
      std::vector<std::int64_t> s = shape;
      for (std::size_t i = 0; i < d; ++i) {
        const std::int64_t start = offset[i] * g.dilations[i];
        v = slice_expr(t, v, s, 1 + i, start, start + (g.out[i] - 1) * g.strides[i] + 1,
                       g.strides[i], "f32");
        s[1 + i] = g.out[i];
      }
      e = t.let(e.empty() ? v : "maximum(" + e + ", " + v + ")");
      std::size_t i = d;
      while (i-- > 0 && ++offset[i] == g.kernel[i]) offset[i] = 0;
      if (i == static_cast<std::size_t>(-1)) break;
    }
    return t.emit_in_layout(e, cl);
  }
  if (Max) {
    // Even padding of at most half the window, no ceil mode's extra: the
    // language's own (-inf, which a window with an element of the image
    // never takes), so the pool reads the image in place, no padded copy.
    bool own = true;
    for (std::size_t i = 0; i < d; ++i)
      own = own && g.begin[i] == g.end[i] && extra[i] == 0 && 2 * g.begin[i] <= g.kernel[i];
    if (own)
      return t.emit_in_layout("max_pool(" + xs + over + "padding=" + list(g.begin) + ", " + window,
                              cl);
    return t.emit_in_layout("max_pool(" + padded(xs, g, 1, kLowest, &extra) + over + window, cl);
  }
  const bool count_pad = t.int_attr("count_include_pad", 0) != 0;
  const std::string sum = "avg_pool(" + padded(xs, g, 1, "0.0", &extra) + over + window;
  bool any_pad = false;
  for (std::size_t i = 0; i < d; ++i) any_pad = any_pad || g.begin[i] || g.end[i] || extra[i];
  if (!any_pad) return t.emit_in_layout(sum, cl);
  // The average over the elements the window covers: the input's (and with
  // count_include_pad the padding's, but never ceil mode's extra), as the
  // same pool of a mask of ones.
  std::vector<std::int64_t> ones_shape = {1};
  for (std::size_t i = 0; i < d; ++i)
    ones_shape.push_back(in[i] + (count_pad ? g.begin[i] + g.end[i] : 0));
  ones_shape.push_back(1);
  const std::string ones = "ones(" + Translator::type_text(ones_shape, "f32") + ")";
  Geometry counted = g;
  if (count_pad) {
    std::fill(counted.begin.begin(), counted.begin.end(), 0);
    std::fill(counted.end.begin(), counted.end.end(), 0);
  }
  const std::string area =
      t.let("avg_pool(" + padded(ones, counted, 1, "0.0", &extra) + over + window);
  t.emit_in_layout(t.let(sum) + " / " + area, cl);
}

template <bool Max>
void global_pool(Translator& t) {
  const Value& x = t.need(0);
  if (x.rank() < 3) t.unsupported("E2008", "a global pool needs spatial axes (N C ...)");
  const auto cl = to_last(x.rank());
  if (x.perm == cl)  // channels last: the spatial axes are 1..d
    return t.emit_in_layout(std::string(Max ? "max(" : "mean(") + x.expr +
                                ", over=" + over_axes(x.rank() - 2, 1) + ", keep=true)",
                            cl);
  t.emit(std::string(Max ? "max(" : "mean(") + t.operand(x) +
         ", over=" + over_axes(x.rank() - 2, 2) + ", keep=true)");
}

// Input k of the node, a per-channel vector [C] of x (N C ...). ONNX's
// inference doesn't hold every such operand to C (InstanceNormalization's
// scale isn't): one that isn't C long is refused, not written into a program
// that doesn't check.
const Value& channels_of(Translator& t, int k, const Value& x) {
  const Value& v = t.need(k);
  if (v.rank() != 1 || v.count() != x.shape.at(1))
    t.unsupported("E2008", "input " + std::to_string(k) + " needs the shape [" +
                               std::to_string(x.shape.at(1)) + "], one value a channel");
  return v;
}

// A per-channel vector [C] of an N C ... tensor, shaped to broadcast: [C 1 ...].
std::string per_channel(Translator& t, const Value& v, std::size_t rank) {
  std::vector<std::int64_t> to = {v.count()};
  for (std::size_t i = 2; i < rank; ++i) to.push_back(1);
  return reshape_expr(t, t.operand(v), v.shape, to, v.dtype());
}

void batch_norm(Translator& t) {
  const Value& x = t.need(0);
  if (t.int_attr("training_mode", 0))
    t.unsupported("E2005", "BatchNormalization in training mode",
                  "export the model in eval mode (model.eval())");
  if (x.dtype() != "f32")
    t.unsupported("E2006", "BatchNormalization of " + onnx_type_name(x.onnx_type));
  if (x.rank() < 2) t.unsupported("E2008", "BatchNormalization needs a channel axis");
  for (int k = 1; k <= 4; ++k) channels_of(t, k, x);
  const std::string eps = Translator::literal(t.float_attr("epsilon", 1e-5f), "f32");
  if (x.rank() >= 3 && x.perm == to_last(x.rank())) {  // channels last: [C] broadcasts as it is
    auto p = [&](int i) { return t.onnx_operand(t.need(i)); };
    return t.emit_in_layout("(" + x.expr + " - " + p(3) + ") / sqrt(" + p(4) + " + " + eps +
                                ") * " + p(1) + " + " + p(2),
                            to_last(x.rank()));
  }
  const std::string scale = per_channel(t, t.need(1), x.rank()),
                    bias = per_channel(t, t.need(2), x.rank());
  const std::string mean = per_channel(t, t.need(3), x.rank()),
                    var = per_channel(t, t.need(4), x.rank());
  t.emit("(" + t.operand(x) + " - " + mean + ") / sqrt(" + var + " + " + eps + ") * " + scale +
         " + " + bias);
}

void layer_norm(Translator& t) {
  const Value& x = t.need(0);
  if (x.dtype() != "f32" && x.dtype() != "f16" && x.dtype() != "bf16")
    t.unsupported("E2006", "LayerNormalization of " + onnx_type_name(x.onnx_type));
  const std::int64_t axis = axis_of(t, t.int_attr("axis", -1), x.rank());
  std::vector<std::int64_t> axes;
  for (auto a = axis; a < static_cast<std::int64_t>(x.rank()); ++a) axes.push_back(a);
  // Scale and B broadcast onto the normalized axes, X's from `axis` on;
  // ONNX's inference doesn't check them (fuzz_onnx's eighth find).
  for (int k = 1; k <= 2; ++k) {
    const Value* p = t.input(k);
    if (!p) continue;
    bool fits = p->rank() <= axes.size();
    for (std::size_t i = 1; fits && i <= p->rank(); ++i) {
      const std::int64_t d = p->shape[p->rank() - i], want = x.shape[x.rank() - i];
      fits = d == want || d == 1;
    }
    if (!fits)
      t.unsupported("E2008", std::string(k == 1 ? "Scale" : "B") + " doesn't broadcast onto " +
                                 "the normalized axes, X's from axis " + std::to_string(axis));
  }
  const bool wide = x.dtype() != "f32";
  std::string v = t.operand(x);
  if (wide) v = "f32(" + v + ")";
  auto param = [&](const Value& p) {
    const std::string e = t.operand(p);
    return p.dtype() == "f32" ? e : "f32(" + e + ")";
  };
  const float epsilon = t.float_attr("epsilon", 1e-5f);
  const std::string eps = Translator::literal(epsilon, "f32");
  const auto& node = t.node();
  const bool stats = (node.output_size() > 1 && !node.output(1).empty()) ||
                     (node.output_size() > 2 && !node.output(2).empty());
  // The language's own, one pass a row, takes a positive eps: another (0,
  // or negative: fuzz_onnx_models's sixth find) is spelt out below, as ONNX
  // computes it.
  if (axes.size() == 1 && !stats && epsilon > 0 && std::isfinite(epsilon)) {
    std::string y = "layer_norm(" + v + ", over=-1, eps=" + eps + ") * " + param(t.need(1));
    if (const Value* b = t.input(2)) y += " + " + param(*b);
    t.emit(wide ? x.dtype() + "(" + y + ")" : y, 0);
    return;
  }
  const std::string over = ", over=" + over_text(axes) + ", keep=true)";
  const std::string mean = t.let("mean(" + v + over);
  const std::string centred = t.let(v + " - " + mean);
  const std::string inv =
      t.let("1.0 / sqrt(mean(" + centred + " * " + centred + over + " + " + eps + ")");
  std::string y = centred + " * " + inv + " * " + param(t.need(1));
  if (const Value* b = t.input(2)) y += " + " + param(*b);
  t.emit(wide ? x.dtype() + "(" + y + ")" : y, 0);
  if (t.node().output_size() > 1 && !t.node().output(1).empty()) t.emit(mean, 1);
  if (t.node().output_size() > 2 && !t.node().output(2).empty()) t.emit(inv, 2);
}

void instance_norm(Translator& t) {
  const Value& x = t.need(0);
  if (x.dtype() != "f32")
    t.unsupported("E2006", "InstanceNormalization of " + onnx_type_name(x.onnx_type));
  if (x.rank() < 3) t.unsupported("E2008", "InstanceNormalization needs spatial axes (N C ...)");
  const std::string eps = Translator::literal(t.float_attr("epsilon", 1e-5f), "f32");
  const std::string over = ", over=" + over_axes(x.rank() - 2, 2) + ", keep=true)";
  const std::string v = t.operand(x);
  const std::string centred = t.let(v + " - mean(" + v + over);
  t.emit(centred + " / sqrt(mean(" + centred + " * " + centred + over + " + " + eps + ") * " +
         per_channel(t, channels_of(t, 1, x), x.rank()) + " + " +
         per_channel(t, channels_of(t, 2, x), x.rank()));
}

}  // namespace

void register_windows(std::map<std::string, Handler>& table) {
  table["Conv"] = conv;
  table["ConvTranspose"] = conv_transpose;
  table["MaxPool"] = pool<true>;
  table["AveragePool"] = pool<false>;
  table["GlobalMaxPool"] = global_pool<true>;
  table["GlobalAveragePool"] = global_pool<false>;
  table["BatchNormalization"] = batch_norm;
  table["LayerNormalization"] = layer_norm;
  table["InstanceNormalization"] = instance_norm;
}

}  // namespace ss::onnx_import
