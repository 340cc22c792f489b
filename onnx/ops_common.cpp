#include "onnx/ops_common.hpp"

namespace ss::onnx_import {

std::int64_t axis_of(const Translator& t, std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    t.unsupported(
        "E2005", "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
  return axis < 0 ? axis + r : axis;
}

std::vector<std::string> axis_names(std::size_t rank, const std::string& prefix) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < rank; ++i) out.push_back(prefix + std::to_string(i));
  return out;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string over_text(const std::vector<std::int64_t>& axes) {
  if (axes.size() == 1) return std::to_string(axes[0]);
  std::string s = "[";
  for (std::size_t i = 0; i < axes.size(); ++i) s += (i ? " " : "") + std::to_string(axes[i]);
  return s + "]";
}

namespace {

// A reshape as one rearrange where each run of `from`'s axes and the run of
// `to`'s it becomes have the same product and one side is a single axis:
// axes merged (`a0 a1 a2 -> (a0 a1) a2`, a squeeze) or one split (`a0 (b1
// b2) -> a0 b1 b2, b1=3, b2=64`, an unsqueeze); "" where a run has several
// axes on both sides (then flattened and split: two rearranges, two nodes).
std::string aligned_reshape(const std::string& x, const std::vector<std::int64_t>& from,
                            const std::vector<std::int64_t>& to) {
  std::vector<std::string> in, out, sizes;
  std::size_t i = 0, j = 0;
  while (i < from.size() || j < to.size()) {
    const std::size_t i0 = i, j0 = j;
    std::int64_t pi = 1, pj = 1;
    if (i < from.size()) pi = from[i++];
    if (j < to.size()) pj = to[j++];
    while (pi != pj) {
      if (pi < pj && i < from.size()) {
        pi *= from[i++];
      } else if (pj < pi && j < to.size()) {
        pj *= to[j++];
      } else {
        return {};
      }
    }
    // Axes of 1 are written as 1 (dropped on the left, made on the right):
    // `1*batch` isn't `batch` to the checker.
    std::vector<std::string> from_named, to_named;
    std::size_t named_at = 0;  // where in `in` the last named `from` axis is
    for (std::size_t k = i0; k < i; ++k) {
      if (from[k] == 1) {
        in.push_back("1");
        continue;
      }
      from_named.push_back("a" + std::to_string(k));
      named_at = in.size();
      in.push_back(from_named.back());
    }
    for (std::size_t k = j0; k < j; ++k)
      to_named.push_back(to[k] == 1 ? "1" : "b" + std::to_string(k));
    std::vector<std::string> to_sized;  // to's named axes
    for (std::size_t k = j0; k < j; ++k)
      if (to[k] != 1) to_sized.push_back("b" + std::to_string(k));
    if (from_named.size() > 1 && to_sized.size() > 1) return {};
    if (to_sized.size() <= 1) {  // merged (or renamed) into its one named axis, if any
      const std::string merged = from_named.size() == 1 ? from_named[0]
                                 : from_named.empty()   ? std::string("1")
                                                        : "(" + join(from_named) + ")";
      for (std::string& name : to_named)
        if (name != "1") name = merged;
      if (to_sized.empty() && !from_named.empty()) return {};  // (a product of 1: can't be)
    } else {                                                   // one named axis split into several
      std::string group;
      for (std::size_t k = j0; k < j; ++k)
        if (to[k] != 1) {
          group += (group.empty() ? "b" : " b") + std::to_string(k);
          sizes.push_back("b" + std::to_string(k) + "=" + std::to_string(to[k]));
        }
      in[named_at] = "(" + group + ")";  // the one named `from` axis
    }
    out.insert(out.end(), to_named.begin(), to_named.end());
  }
  std::string text = "rearrange(" + x + ", " + join(in) + " -> " + join(out);
  if (!sizes.empty()) text += ", " + join(sizes, ", ");
  return text + ")";
}

}  // namespace

std::string reshape_expr(Translator& t, const std::string& x, const std::vector<std::int64_t>& from,
                         const std::vector<std::int64_t>& to, const std::string& /*dtype*/) {
  if (from == to) return x;
  std::string flat = x;
  if (from.empty() || to.empty()) {  // a scalar to all ones, or back
    std::vector<std::string> ones_in(from.size(), "1"), ones_out(to.size(), "1");
    return "rearrange(" + x + ", " + join(ones_in) + " -> " + join(ones_out) + ")";
  }
  if (std::string one = aligned_reshape(x, from, to); !one.empty()) return one;
  if (from.size() > 1)
    flat = "rearrange(" + x + ", " + join(axis_names(from.size())) + " -> (" +
           join(axis_names(from.size())) + "))";
  if (to.size() == 1) return flat;
  std::vector<std::string> sizes;
  const auto names = axis_names(to.size(), "b");
  for (std::size_t i = 0; i < to.size(); ++i)
    sizes.push_back(names[i] + "=" + std::to_string(to[i]));
  (void)t;
  return "rearrange(" + flat + ", (" + join(names) + ") -> " + join(names) + ", " +
         join(sizes, ", ") + ")";
}

std::string transpose_expr(const std::string& x, const std::vector<std::int64_t>& perm) {
  bool identity = true;
  for (std::size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<std::int64_t>(i);
  if (identity) return x;
  const auto names = axis_names(perm.size());
  std::vector<std::string> out;
  for (auto p : perm) out.push_back(names[static_cast<std::size_t>(p)]);
  return "rearrange(" + x + ", " + join(names) + " -> " + join(out) + ")";
}

std::string slice_expr(Translator& t, const std::string& x, const std::vector<std::int64_t>& shape,
                       std::size_t axis, std::int64_t start, std::int64_t end, std::int64_t step,
                       const std::string& dtype) {
  const std::int64_t size = shape[axis];
  std::string value = x;
  std::vector<std::int64_t> s = shape;
  if (start != 0 || end != size) {
    const std::string dim = t.slicing_dim(size);
    std::string type = "[";
    for (std::size_t i = 0; i < s.size(); ++i)
      type += (i ? " " : "") + (i == axis ? dim : std::to_string(s[i]));
    type += "]";
    if (dtype != "f32") type += " " + dtype;
    const std::string named = t.temp();
    t.let_typed(named, type, value);
    value = named + "[" + dim + "=" + std::to_string(start) + ":" + std::to_string(end) + "]";
    s[axis] = end - start;
  }
  if (step == 1) return value;
  // Every step-th: pad to a multiple of step, split the axis and keep the first of each group.
  const std::int64_t n = s[axis];
  const std::int64_t groups = (n + step - 1) / step;
  const std::int64_t padded = groups * step;
  if (padded != n)
    value = "pad(" + value + ", over=" + std::to_string(axis) +
            ", after=" + std::to_string(padded - n) + ")";
  auto names = axis_names(s.size());
  std::vector<std::string> in = names, out = names;
  in[axis] = "(g k)";
  out[axis] = "g";
  const std::string split = t.let("rearrange(" + value + ", " + join(in) + " -> " + join(out) +
                                  " k, k=" + std::to_string(step) + ")");
  std::string sp = "[";
  for (std::size_t i = 0; i < s.size(); ++i) sp += std::to_string(i == axis ? groups : s[i]) + " ";
  const std::string dim = t.slicing_dim(step);
  sp += dim + "]";
  if (dtype != "f32") sp += " " + dtype;
  const std::string named = t.temp();
  t.let_typed(named, sp, split);
  return named + "[" + dim + "=0]";
}

std::string expand_expr(const std::string& x, const std::vector<std::int64_t>& shape,
                        const std::vector<std::int64_t>& to) {
  if (shape == to) return x;
  const std::size_t lead = to.size() - shape.size();
  std::vector<std::string> in, out, sizes;
  for (std::size_t i = 0; i < to.size(); ++i) {
    const std::string name = "a" + std::to_string(i);
    if (i < lead) {
      out.push_back(name);
      sizes.push_back(name + "=" + std::to_string(to[i]));
    } else if (shape[i - lead] == 1 && to[i] != 1) {
      in.push_back("1");
      out.push_back(name);
      sizes.push_back(name + "=" + std::to_string(to[i]));
    } else {
      in.push_back(name);
      out.push_back(name);
    }
  }
  return "repeat(" + x + ", " + join(in) + " -> " + join(out) +
         (sizes.empty() ? "" : ", " + join(sizes, ", ")) + ")";
}

std::string gather_axis(Translator& t, const std::string& x, const std::vector<std::int64_t>& shape,
                        const std::string& dtype, std::size_t axis,
                        const std::vector<std::int64_t>& ids) {
  const std::int64_t n = shape[axis];
  bool identity = static_cast<std::int64_t>(ids.size()) == n;
  for (std::size_t i = 0; identity && i < ids.size(); ++i)
    identity = ids[i] == static_cast<std::int64_t>(i);
  if (identity) return x;
  std::string list = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) list += (i ? ", " : "") + std::to_string(ids[i]);
  list += "]";
  return gather_axis_by(t, x, shape, dtype, axis, list);
}

std::string gather_axis_by(Translator& t, const std::string& x,
                           const std::vector<std::int64_t>& shape, const std::string& dtype,
                           std::size_t axis, const std::string& ids) {
  const std::int64_t n = shape[axis];
  std::vector<std::int64_t> perm = {static_cast<std::int64_t>(axis)};
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (i != axis) perm.push_back(static_cast<std::int64_t>(i));
  const std::string dim = t.gather_dim(n);
  std::string type = "[" + dim;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (i != axis) type += " " + std::to_string(shape[i]);
  type += "]";
  if (dtype != "f32") type += " " + dtype;
  const std::string table = t.temp();
  t.let_typed(table, type, transpose_expr(x, perm));
  std::vector<std::int64_t> back;
  for (std::size_t i = 1; i <= axis; ++i) back.push_back(static_cast<std::int64_t>(i));
  back.insert(back.begin() + static_cast<std::ptrdiff_t>(axis), 0);
  for (std::size_t i = axis + 1; i < shape.size(); ++i)
    back.push_back(static_cast<std::int64_t>(i));
  return transpose_expr(table + "[Index[" + dim + "](" + ids + ")]", back);
}

std::string frozen_floats(Translator& t, const std::vector<double>& values,
                          const std::vector<std::int64_t>& shape, const std::string& dtype) {
  Value v;
  v.constant = Constant{};
  v.constant->onnx_type = dtype == "f16"    ? onnx::TensorProto::FLOAT16
                          : dtype == "bf16" ? onnx::TensorProto::BFLOAT16
                                            : onnx::TensorProto::FLOAT;
  v.constant->shape = shape;
  v.constant->floats = values;
  v.shape = shape;
  v.onnx_type = v.constant->onnx_type;
  v.frozen = true;
  return t.operand(v);
}

Constant ints_constant(std::vector<std::int64_t> values, std::vector<std::int64_t> shape,
                       int onnx_type) {
  Constant c;
  c.onnx_type = onnx_type;
  c.shape = std::move(shape);
  c.ints = std::move(values);
  return c;
}

Value value_of(Constant c) {
  Value v;
  v.shape = c.shape;
  v.onnx_type = c.onnx_type;
  v.constant = std::move(c);
  return v;
}

std::vector<std::int64_t> constant_ints(const Translator& t, int input, const char* what) {
  const Value& v = t.need(input);
  if (!v.constant)
    t.unsupported("E2007",
                  std::string("its ") + what + " (`" + t.node().input(input) +
                      "`) is computed from the model's inputs, not known at import",
                  "shapescript sizes every tensor before it runs");
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < v.constant->count(); ++i)
    out.push_back(v.constant->int_at(static_cast<std::size_t>(i)));
  return out;
}

}  // namespace ss::onnx_import
