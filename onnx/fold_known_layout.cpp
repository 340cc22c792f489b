// fold_known.hpp's layout ops (Reshape, Unsqueeze, Squeeze, Flatten,
// Transpose, Expand, Tile, Concat, ConstantOfShape) and scatters and
// gathers (ScatterND, ScatterElements, GatherElements), over constants.
#include <algorithm>
#include <optional>

#include "onnx/fold_known.hpp"
#include "onnx/folding.hpp"

namespace ss::onnx_import {

using TP = onnx::TensorProto;
using Inputs = std::vector<const Constant*>;
using Result = std::optional<Constant>;

namespace {

std::vector<std::int64_t> ints_of(const Constant* c) {
  std::vector<std::int64_t> v;
  if (c)
    for (std::int64_t i = 0; i < c->count(); ++i)
      v.push_back(c->int_at(static_cast<std::size_t>(i)));
  return v;
}

bool fits(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > kFoldedElements) return false;
  return true;
}

// An axis of `rank` (negative counting from the end), or -1 out of range.
std::int64_t axis_in(std::int64_t a, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (a < -r || a >= r) return -1;
  return a < 0 ? a + r : a;
}

Constant reshaped(const Constant& c, std::vector<std::int64_t> shape) {
  Constant out = c;
  out.shape = std::move(shape);
  return out;
}

Result reshape(const Constant& x, const std::vector<std::int64_t>& to, bool allowzero) {
  std::vector<std::int64_t> shape = to;
  std::int64_t known = 1, infer = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= x.shape.size()) return std::nullopt;
      shape[i] = x.shape[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<std::int64_t>(i);
    } else if (shape[i] < 0 || __builtin_mul_overflow(known, shape[i], &known)) {
      return std::nullopt;
    }
  }
  if (infer >= 0) {
    if (known == 0 || x.count() % known) return std::nullopt;
    shape[static_cast<std::size_t>(infer)] = x.count() / known;
  }
  if (!fits(shape)) return std::nullopt;
  Constant probe;
  probe.shape = shape;
  if (probe.count() != x.count()) return std::nullopt;
  return reshaped(x, shape);
}

// x's elements with its axes permuted: axis k of the result is x's perm[k].
Result transpose(const Constant& x, const std::vector<std::int64_t>& perm) {
  if (perm.size() != x.shape.size()) return std::nullopt;
  std::vector<std::int64_t> shape;
  for (auto p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(x.shape.size())) return std::nullopt;
    shape.push_back(x.shape[static_cast<std::size_t>(p)]);
  }
  const auto s = strides_of(x.shape);
  return gather_flat(x, shape, [&](const std::vector<std::int64_t>& i) {
    std::int64_t f = 0;
    for (std::size_t k = 0; k < i.size(); ++k) f += i[k] * s[static_cast<std::size_t>(perm[k])];
    return f;
  });
}

// x broadcast to `shape`, or tiled `reps` times along each axis.
Result broadcast_to(const Constant& x, const std::vector<std::int64_t>& to) {
  bool ok = true;
  const auto shape = broadcast_shape(x.shape, to, &ok);
  if (!ok || !fits(shape)) return std::nullopt;
  const auto s = strides_of(x.shape);
  const std::size_t lead = shape.size() - x.shape.size();
  return gather_flat(x, shape, [&](const std::vector<std::int64_t>& i) {
    std::int64_t f = 0;
    for (std::size_t k = 0; k < x.shape.size(); ++k)
      if (x.shape[k] != 1) f += i[lead + k] * s[k];
    return f;
  });
}

Result tile(const Constant& x, const std::vector<std::int64_t>& reps) {
  if (reps.size() != x.shape.size()) return std::nullopt;
  std::vector<std::int64_t> shape;
  for (std::size_t k = 0; k < reps.size(); ++k) {
    std::int64_t d = 0;
    if (reps[k] < 0 || __builtin_mul_overflow(x.shape[k], reps[k], &d)) return std::nullopt;
    shape.push_back(d);
  }
  if (!fits(shape)) return std::nullopt;
  const auto s = strides_of(x.shape);
  return gather_flat(x, shape, [&](const std::vector<std::int64_t>& i) {
    std::int64_t f = 0;
    for (std::size_t k = 0; k < i.size(); ++k) f += (i[k] % x.shape[k]) * s[k];
    return f;
  });
}

Result concat(const Inputs& in, std::int64_t axis_attr) {
  const Constant& first = *in[0];
  const std::int64_t axis = axis_in(axis_attr, first.shape.size());
  if (axis < 0) return std::nullopt;
  const auto a = static_cast<std::size_t>(axis);
  Constant out;
  out.onnx_type = first.onnx_type;
  out.shape = first.shape;
  out.shape[a] = 0;
  for (const Constant* c : in) {
    if (c->onnx_type != first.onnx_type || c->shape.size() != first.shape.size())
      return std::nullopt;
    for (std::size_t k = 0; k < c->shape.size(); ++k)
      if (k != a && c->shape[k] != first.shape[k]) return std::nullopt;
    out.shape[a] += c->shape[a];
  }
  if (!fits(out.shape)) return std::nullopt;
  std::int64_t outer = 1;
  for (std::size_t k = 0; k < a; ++k) outer *= first.shape[k];
  for (std::int64_t o = 0; o < outer; ++o)
    for (const Constant* c : in) {
      const std::int64_t block = c->count() / std::max<std::int64_t>(outer, 1);
      for (std::int64_t j = 0; j < block; ++j) {
        const auto k = static_cast<std::size_t>(o * block + j);
        if (c->is_float())
          out.floats.push_back(c->floats[k]);
        else
          out.ints.push_back(c->ints[k]);
      }
    }
  return out;
}

Result unsqueeze(const Constant& x, std::vector<std::int64_t> axes) {
  const std::size_t rank = x.shape.size() + axes.size();
  for (auto& a : axes) {
    a = axis_in(a, rank);
    if (a < 0) return std::nullopt;
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) return std::nullopt;
  std::vector<std::int64_t> shape;
  std::size_t from = 0, next = 0;
  for (std::size_t k = 0; k < rank; ++k) {
    if (next < axes.size() && axes[next] == static_cast<std::int64_t>(k)) {
      shape.push_back(1);
      ++next;
    } else {
      shape.push_back(x.shape[from++]);
    }
  }
  return reshaped(x, shape);
}

Result squeeze(const Constant& x, const std::vector<std::int64_t>& given) {
  std::vector<bool> drop(x.shape.size(), given.empty());
  if (given.empty())
    for (std::size_t k = 0; k < x.shape.size(); ++k) drop[k] = x.shape[k] == 1;
  for (auto a : given) {
    const std::int64_t k = axis_in(a, x.shape.size());
    if (k < 0 || x.shape[static_cast<std::size_t>(k)] != 1) return std::nullopt;
    drop[static_cast<std::size_t>(k)] = true;
  }
  std::vector<std::int64_t> shape;
  for (std::size_t k = 0; k < x.shape.size(); ++k)
    if (!drop[k]) shape.push_back(x.shape[k]);
  return reshaped(x, shape);
}

}  // namespace

Result fold_layout(const std::string& op, const Inputs& in, const Translator& t) {
  if (in.empty()) return std::nullopt;
  const Constant& x = *in[0];
  if (op == "Reshape" && in.size() == 2)
    return reshape(x, ints_of(in[1]), t.int_attr("allowzero", 0) != 0);
  if (op == "Unsqueeze" && in.size() == 2) return unsqueeze(x, ints_of(in[1]));
  if (op == "Squeeze")
    return squeeze(x, in.size() > 1 ? ints_of(in[1]) : std::vector<std::int64_t>{});
  if (op == "Flatten" && in.size() == 1) {
    const std::int64_t axis = t.int_attr("axis", 1);
    const std::int64_t a =
        axis == static_cast<std::int64_t>(x.shape.size()) ? axis : axis_in(axis, x.shape.size());
    if (a < 0) return std::nullopt;
    std::int64_t outer = 1;
    for (std::int64_t k = 0; k < a; ++k) outer *= x.shape[static_cast<std::size_t>(k)];
    return reshaped(x, {outer, outer ? x.count() / outer : 0});
  }
  if (op == "Transpose" && in.size() == 1) {
    std::vector<std::int64_t> perm = t.ints_attr("perm");
    if (perm.empty())
      for (std::size_t k = x.shape.size(); k-- > 0;) perm.push_back(static_cast<std::int64_t>(k));
    return transpose(x, perm);
  }
  if (op == "Expand" && in.size() == 2) return broadcast_to(x, ints_of(in[1]));
  if (op == "Tile" && in.size() == 2) return tile(x, ints_of(in[1]));
  if (op == "Concat") return concat(in, t.int_attr("axis", 0));
  if (op == "ConstantOfShape" && in.size() == 1) {
    Constant value;
    value.onnx_type = TP::FLOAT;
    value.floats = {0.0};
    if (const auto* a = t.attr("value")) value = read_constant(a->t(), "");
    if (value.count() != 1) return std::nullopt;
    const auto shape = ints_of(in[0]);
    if (!fits(shape)) return std::nullopt;
    return broadcast_to(reshaped(value, {}), shape);
  }
  return std::nullopt;
}

namespace {

enum class Reduction { none, add, mul, max, min };

std::optional<Reduction> reduction_of(const Translator& t) {
  const std::string r = t.string_attr("reduction", "none");
  if (r == "none") return Reduction::none;
  if (r == "add") return Reduction::add;
  if (r == "mul") return Reduction::mul;
  if (r == "max") return Reduction::max;
  if (r == "min") return Reduction::min;
  return std::nullopt;
}

// out[at] combined with `from`[k] by the reduction.
void combine(Constant& out, std::size_t at, const Constant& from, std::size_t k, Reduction r) {
  const auto apply = [r](auto a, auto b) {
    switch (r) {
      case Reduction::add:
        return a + b;
      case Reduction::mul:
        return a * b;
      case Reduction::max:
        return std::max(a, b);
      case Reduction::min:
        return std::min(a, b);
      default:
        return b;
    }
  };
  if (out.is_float()) {
    double v = apply(out.floats[at], from.floats[k]);
    out.floats[at] = out.onnx_type == TP::FLOAT ? static_cast<float>(v) : v;
  } else {
    out.ints[at] = apply(out.ints[at], from.ints[k]);
  }
}

Result scatter_nd(const Constant& data, const Constant& indices, const Constant& updates,
                  Reduction r) {
  if (indices.shape.empty() || updates.onnx_type != data.onnx_type) return std::nullopt;
  const auto k = static_cast<std::size_t>(indices.shape.back());
  if (k > data.shape.size()) return std::nullopt;
  const auto s = strides_of(data.shape);
  std::int64_t block = 1;  // the elements one index tuple names
  for (std::size_t a = k; a < data.shape.size(); ++a) block *= data.shape[a];
  const std::int64_t tuples = k ? indices.count() / static_cast<std::int64_t>(k) : 0;
  if (tuples * block != updates.count()) return std::nullopt;
  Constant out = data;
  for (std::int64_t i = 0; i < tuples; ++i) {
    std::int64_t f = 0;
    for (std::size_t a = 0; a < k; ++a) {
      std::int64_t v =
          indices.int_at(static_cast<std::size_t>(i * static_cast<std::int64_t>(k)) + a);
      if (v < 0) v += data.shape[a];
      if (v < 0 || v >= data.shape[a]) return std::nullopt;
      f += v * s[a];
    }
    for (std::int64_t j = 0; j < block; ++j)
      combine(out, static_cast<std::size_t>(f + j), updates,
              static_cast<std::size_t>(i * block + j), r);
  }
  return out;
}

// ScatterElements (updates into data) and GatherElements (data at indices)
// along `axis`: element i of indices names the position on that axis.
Result along_axis(bool scatter, const Constant& data, const Constant& indices,
                  const Constant* updates, std::int64_t axis_attr, Reduction r) {
  const std::int64_t axis = axis_in(axis_attr, data.shape.size());
  if (axis < 0 || indices.shape.size() != data.shape.size()) return std::nullopt;
  if (scatter &&
      (!updates || updates->shape != indices.shape || updates->onnx_type != data.onnx_type))
    return std::nullopt;
  const auto a = static_cast<std::size_t>(axis);
  const auto s = strides_of(data.shape);
  Constant out = data;
  if (!scatter) {
    out.shape = indices.shape;
    out.ints.clear();
    out.floats.clear();
  }
  std::vector<std::int64_t> index(indices.shape.size(), 0);
  for (std::int64_t i = 0; i < indices.count(); ++i) {
    std::int64_t v = indices.int_at(static_cast<std::size_t>(i)), f = 0;
    if (v < 0) v += data.shape[a];
    if (v < 0 || v >= data.shape[a]) return std::nullopt;
    for (std::size_t k = 0; k < index.size(); ++k) {
      if (k != a && index[k] >= data.shape[k]) return std::nullopt;
      f += (k == a ? v : index[k]) * s[k];
    }
    const auto at = static_cast<std::size_t>(f);
    if (scatter)
      combine(out, at, *updates, static_cast<std::size_t>(i), r);
    else if (data.is_float())
      out.floats.push_back(data.floats[at]);
    else
      out.ints.push_back(data.ints[at]);
    for (std::size_t k = index.size(); k-- > 0;) {
      if (++index[k] < indices.shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

}  // namespace

Result fold_scatter(const std::string& op, const Inputs& in, const Translator& t) {
  const auto r = reduction_of(t);
  if (!r || in.size() < 2) return std::nullopt;
  if (op == "ScatterND" && in.size() == 3) return scatter_nd(*in[0], *in[1], *in[2], *r);
  if (op == "ScatterElements" && in.size() == 3)
    return along_axis(true, *in[0], *in[1], in[2], t.int_attr("axis", 0), *r);
  if (op == "GatherElements" && in.size() == 2)
    return along_axis(false, *in[0], *in[1], nullptr, t.int_attr("axis", 0), Reduction::none);
  return std::nullopt;
}

}  // namespace ss::onnx_import
