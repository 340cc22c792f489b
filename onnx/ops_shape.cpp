// Shape ops: the shape subgraphs folded at import (Shape, Size, Constant,
// ConstantOfShape, and any of the rest on constants), and the
// reshapes, transposes, joins, slices and gathers of tensors the program
// computes.
#include <algorithm>
#include <cmath>

#include "onnx/folding.hpp"
#include "onnx/ops.hpp"
#include "onnx/ops_common.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

void shape(Translator& t) {
  const Value& x = t.need(0);
  const auto r = static_cast<std::int64_t>(x.rank());
  auto clamp = [&](std::int64_t a) { return std::clamp(a < 0 ? a + r : a, std::int64_t{0}, r); };
  const std::int64_t start = clamp(t.int_attr("start", 0)), end = clamp(t.int_attr("end", r));
  std::vector<std::int64_t> dims;
  for (std::int64_t i = start; i < end; ++i) dims.push_back(x.shape[static_cast<std::size_t>(i)]);
  const auto n = static_cast<std::int64_t>(dims.size());
  t.fold(ints_constant(std::move(dims), {n}));
}

void size(Translator& t) {
  t.fold(ints_constant({t.need(0).count()}, {}));
}

void constant(Translator& t) {
  const auto& n = t.node();
  for (const auto& a : n.attribute()) {
    if (a.name() == "value") return t.fold(read_constant(a.t(), ""));
    if (a.name() == "value_float" || a.name() == "value_floats") {
      Constant c;
      c.onnx_type = TP::FLOAT;
      if (a.name() == "value_float")
        c.floats = {a.f()};
      else {
        c.floats.assign(a.floats().begin(), a.floats().end());
        c.shape = {static_cast<std::int64_t>(c.floats.size())};
      }
      return t.fold(c);
    }
    if (a.name() == "value_int") return t.fold(ints_constant({a.i()}, {}));
    if (a.name() == "value_ints") {
      std::vector<std::int64_t> v(a.ints().begin(), a.ints().end());
      const auto k = static_cast<std::int64_t>(v.size());
      return t.fold(ints_constant(std::move(v), {k}));
    }
    t.unsupported("E2005", "a Constant's `" + a.name() + "` isn't supported");
  }
  t.unsupported("E2002", "the Constant has no value");
}

void constant_of_shape(Translator& t) {
  const auto dims = constant_ints(t, 0, "shape");
  Constant value;
  if (const auto* a = t.attr("value"))
    value = read_constant(a->t(), "");
  else {
    value.onnx_type = TP::FLOAT;
    value.shape = {1};
    value.floats = {0.0};
  }
  Constant c;
  c.onnx_type = value.onnx_type;
  c.shape = dims;
  const std::int64_t n = c.count();
  if (!value.is_float() && n <= 4096) {
    c.ints.assign(static_cast<std::size_t>(n), value.ints.at(0));
    return t.fold(c);
  }
  const std::string dtype = ss_dtype(value.onnx_type);
  if (dtype.empty())
    t.unsupported("E2006", "a ConstantOfShape of " + onnx_type_name(value.onnx_type));
  std::string e = "full(" + Translator::type_text(dims, "f32") + ", " +
                  Translator::literal(value.at(0), "f32") + ")";
  if (dtype == "bool")
    e += " != 0.0";
  else if (dtype != "f32")
    e = dtype + "(" + e + ")";
  t.emit(e);
}

// The new shape of a reshape of `x` (ONNX's 0 and -1 rules).
std::vector<std::int64_t> reshape_target(Translator& t, const Value& x,
                                         std::vector<std::int64_t> dims, bool allowzero) {
  std::int64_t known = 1, infer = -1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == 0 && !allowzero) dims[i] = x.shape.at(i);
    if (dims[i] == -1)
      infer = static_cast<std::int64_t>(i);
    else
      known *= dims[i];
  }
  if (infer >= 0) dims[static_cast<std::size_t>(infer)] = known ? x.count() / known : 0;
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  if (n != x.count())
    t.unsupported(
        "E2008", "a Reshape of " + std::to_string(x.count()) + " elements to " + std::to_string(n));
  return dims;
}

void relayout(Translator& t, const Value& x, const std::vector<std::int64_t>& to) {
  if (x.constant) {
    Constant c = *x.constant;
    c.shape = to;
    return t.fold(c);
  }
  t.emit_as(reshape_expr(t, t.operand(x), x.shape, to, x.dtype()), to, x.onnx_type);
}

void reshape(Translator& t) {
  const Value& x = t.need(0);
  relayout(t, x,
           reshape_target(t, x, constant_ints(t, 1, "shape"), t.int_attr("allowzero", 0) != 0));
}

void flatten(Translator& t) {
  const Value& x = t.need(0);
  const std::int64_t axis = t.int_attr("axis", 1);
  const auto r = static_cast<std::int64_t>(x.rank());
  const std::int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a > r) t.unsupported("E2005", "axis " + std::to_string(axis) + " is out of range");
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t i = 0; i < r; ++i)
    (i < a ? outer : inner) *= x.shape[static_cast<std::size_t>(i)];
  relayout(t, x, {outer, inner});
}

void squeeze(Translator& t) {
  const Value& x = t.need(0);
  std::vector<std::int64_t> axes =
      t.input(1) ? constant_ints(t, 1, "axes") : std::vector<std::int64_t>{};
  std::vector<bool> drop(x.rank(), false);
  if (axes.empty())
    for (std::size_t i = 0; i < x.rank(); ++i) drop[i] = x.shape[i] == 1;
  for (auto a : axes) {
    const auto k = static_cast<std::size_t>(axis_of(t, a, x.rank()));
    // ONNX's inference doesn't check (fuzz_onnx_models's tenth find
    // squeezed an empty axis into a scalar that held no value).
    if (x.shape[k] != 1)
      t.unsupported("E2008", "it squeezes axis " + std::to_string(k) + ", of size " +
                                 std::to_string(x.shape[k]) + ", not 1");
    drop[k] = true;
  }
  std::vector<std::int64_t> to;
  for (std::size_t i = 0; i < x.rank(); ++i)
    if (!drop[i]) to.push_back(x.shape[i]);
  relayout(t, x, to);
}

void unsqueeze(Translator& t) {
  const Value& x = t.need(0);
  const auto axes = constant_ints(t, 1, "axes");
  const std::size_t r = x.rank() + axes.size();
  std::vector<bool> added(r, false);
  for (auto a : axes) {
    const auto k = static_cast<std::size_t>(axis_of(t, a, r));
    // A repeated axis (fuzz_onnx_models's seventh find) read past the input's axes.
    if (added[k]) t.unsupported("E2008", "its axes name axis " + std::to_string(k) + " twice");
    added[k] = true;
  }
  std::vector<std::int64_t> to;
  std::size_t k = 0;
  for (std::size_t i = 0; i < r; ++i) to.push_back(added[i] ? 1 : x.shape[k++]);
  relayout(t, x, to);
}

void transpose(Translator& t) {
  const Value& x = t.need(0);
  std::vector<std::int64_t> perm = t.ints_attr("perm");
  if (perm.empty())
    for (std::size_t i = x.rank(); i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
  std::vector<std::int64_t> to;
  std::vector<bool> taken(x.rank(), false);
  for (auto& p : perm) {
    p = axis_of(t, p, x.rank());
    if (taken[static_cast<std::size_t>(p)])
      t.unsupported("E2008", "its perm names axis " + std::to_string(p) + " twice");
    taken[static_cast<std::size_t>(p)] = true;
    to.push_back(x.shape[static_cast<std::size_t>(p)]);
  }
  // A perm of another length (fuzz_onnx's 23rd find) read past the axes' names.
  if (perm.size() != x.rank())
    t.unsupported("E2008", "its perm has " + std::to_string(perm.size()) + " axes; the input has " +
                               std::to_string(x.rank()));
  if (x.constant) {
    const auto s = strides_of(x.shape);
    return t.fold(gather_flat(*x.constant, to, [&](const std::vector<std::int64_t>& i) {
      std::int64_t f = 0;
      for (std::size_t k = 0; k < i.size(); ++k) f += i[k] * s[static_cast<std::size_t>(perm[k])];
      return f;
    }));
  }
  t.emit_as(transpose_expr(t.operand(x), perm), to, x.onnx_type);
  // The last two axes swapped, the rest kept: noted for a MatMul (k^T).
  bool swap = x.rank() >= 2 && x.perm.empty() && x.onnx_type == TP::FLOAT;
  for (std::size_t k = 0; swap && k < perm.size(); ++k) {
    const std::size_t r = x.rank();
    const auto want = static_cast<std::int64_t>(k == r - 1 ? r - 2 : k == r - 2 ? r - 1 : k);
    swap = perm[k] == want;
  }
  if (swap && !t.name_of(x).empty()) t.note_derived({t.name_of(x), 1.0, true});
}

void concat(Translator& t) {
  const Value& first = t.need(0);
  const std::size_t axis =
      static_cast<std::size_t>(axis_of(t, t.int_attr("axis", 0), first.rank()));
  bool all_constant = true;
  std::vector<const Value*> parts;
  for (int i = 0; i < t.inputs_count(); ++i) {
    const Value& v = t.need(i);
    // ONNX's inference may not have seen the parts as they are (a shape the
    // translation bound): each is checked (fuzz_onnx_models's second find,
    // a part of another rank read past its shape).
    bool fits = v.rank() == first.rank() && v.onnx_type == first.onnx_type;
    for (std::size_t a = 0; fits && a < v.rank(); ++a)
      fits = a == axis || v.shape[a] == first.shape[a];
    if (!fits)
      t.unsupported("E2008", "Concat's input " + std::to_string(i) +
                                 " doesn't fit the first's shape and type but on the axis");
    if (v.count() == 0) continue;  // an empty part adds nothing
    parts.push_back(&v);
    all_constant = all_constant && v.constant.has_value();
  }
  std::vector<std::int64_t> to = first.shape;
  to[axis] = 0;
  for (const Value* v : parts) to[axis] += v->shape[axis];
  if (all_constant) {
    Constant c;
    c.onnx_type = first.onnx_type;
    c.shape = to;
    const auto outer_n = [&](const std::vector<std::int64_t>& s) {
      std::int64_t n = 1;
      for (std::size_t i = 0; i < axis; ++i) n *= s[i];
      return n;
    };
    const std::int64_t outer = outer_n(to);
    for (std::int64_t o = 0; o < outer; ++o)
      for (const Value* v : parts) {
        const std::int64_t block = v->count() / std::max<std::int64_t>(outer, 1);
        for (std::int64_t k = 0; k < block; ++k) {
          const auto at = static_cast<std::size_t>(o * block + k);
          if (c.is_float())
            c.floats.push_back(v->constant->floats[at]);
          else
            c.ints.push_back(v->constant->ints[at]);
        }
      }
    return t.fold(c);
  }
  if (parts.size() == 1) return t.emit_as(t.operand(*parts[0]), to, first.onnx_type);
  // Parts in one layout (channels last) join in it, along the axis's place there.
  const auto& perm = parts[0]->perm;
  bool same_layout = !perm.empty();
  for (const Value* v : parts) same_layout = same_layout && !v->expr.empty() && v->perm == perm;
  if (same_layout) {
    const auto at =
        std::find(perm.begin(), perm.end(), static_cast<std::int64_t>(axis)) - perm.begin();
    std::string e = parts[0]->expr;
    for (std::size_t i = 1; i < parts.size(); ++i)
      e = "concat(" + e + ", " + parts[i]->expr + ", over=" + std::to_string(at) + ")";
    return t.emit_in_layout(e, perm);
  }
  std::string e = t.operand(*parts[0]);
  for (std::size_t i = 1; i < parts.size(); ++i)
    e = "concat(" + e + ", " + t.operand(*parts[i]) + ", over=" + std::to_string(axis) + ")";
  t.emit_as(e, to, first.onnx_type);
}

// Elements start, start+step, ... below end of an axis of `size`, ONNX's
// Slice clamping; steps are positive.
struct Range1 {
  std::int64_t start, end, step;
};

Range1 slice_range(Translator& t, std::int64_t size, std::int64_t start, std::int64_t end,
                   std::int64_t step) {
  if (step == 0) t.unsupported("E2005", "a Slice step of 0");
  if (start < 0) start += size;
  if (end < 0) end += size;
  if (step < 0) {  // numpy's: from start down to, not including, end
    start = std::clamp<std::int64_t>(start, -1, size - 1);
    end = std::clamp<std::int64_t>(end, -1, size - 1);
    return {start, std::min(start, end), step};
  }
  start = std::clamp<std::int64_t>(start, 0, size);
  end = std::clamp<std::int64_t>(end, 0, size);
  return {start, std::max(start, end), step};
}

std::int64_t count_of(const Range1& r) {
  return r.step > 0 ? (r.end - r.start + r.step - 1) / r.step
                    : (r.start - r.end - r.step - 1) / -r.step;
}

void slice(Translator& t) {
  const Value& x = t.need(0);
  const auto starts = constant_ints(t, 1, "starts");
  const auto ends = constant_ints(t, 2, "ends");
  std::vector<std::int64_t> axes =
      t.input(3) ? constant_ints(t, 3, "axes") : std::vector<std::int64_t>{};
  std::vector<std::int64_t> steps =
      t.input(4) ? constant_ints(t, 4, "steps") : std::vector<std::int64_t>{};
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  // ONNX's inference doesn't check the counts agree (fuzz_onnx_models's
  // third find read past the shorter).
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    t.unsupported("E2008", "Slice's starts, ends, axes and steps don't have one count");
  std::vector<Range1> ranges;
  for (std::size_t i = 0; i < x.rank(); ++i) ranges.push_back({0, x.shape[i], 1});
  // In a generic translation, the first `n` of a fixed axis, `n` an open
  // axis's size (positions sliced from a buffer by the sequence's length):
  // a gather at arange(n), the axis now that generic one.
  std::map<std::size_t, std::int64_t> prefixes;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const auto a = static_cast<std::size_t>(axis_of(t, axes[i], x.rank()));
    if (Translator::is_open_size(ends[i]) && starts[i] == 0 && steps[i] == 1 &&
        !Translator::is_open_size(x.shape[a])) {
      prefixes[a] = ends[i];
      continue;
    }
    ranges[a] = slice_range(t, x.shape[a], starts[i], ends[i], steps[i]);
  }
  std::vector<std::int64_t> to;
  for (const auto& r : ranges) to.push_back(count_of(r));
  if (!prefixes.empty()) {
    for (std::size_t a = 0; a < x.rank(); ++a)
      if (!prefixes.count(a) &&
          (ranges[a].start != 0 || ranges[a].step != 1 || ranges[a].end != x.shape[a]))
        Translator::check_generic({prefixes.begin()->second},
                                  "a Slice of a generic length and other bounds at once");
    std::string e = t.operand(x);
    std::vector<std::int64_t> shape = x.shape;
    for (const auto& [a, n] : prefixes) {
      e = gather_axis_by(t, e, shape, x.dtype(), a, "arange(" + std::to_string(n) + ")");
      shape[a] = n;
    }
    return t.emit_as(e, shape, x.onnx_type);
  }
  if (x.constant) {
    const auto s = strides_of(x.shape);
    return t.fold(gather_flat(*x.constant, to, [&](const std::vector<std::int64_t>& i) {
      std::int64_t f = 0;
      for (std::size_t k = 0; k < i.size(); ++k)
        f += (ranges[k].start + i[k] * ranges[k].step) * s[k];
      return f;
    }));
  }
  std::string e = t.operand(x);
  std::vector<std::int64_t> shape = x.shape;
  for (std::size_t a = 0; a < x.rank(); ++a) {
    const auto& r = ranges[a];
    if (r.start == 0 && r.end == shape[a] && r.step == 1) continue;
    if (count_of(r) == 0)
      t.unsupported("E2007", "the Slice leaves an axis empty",
                    "shapescript's tensors have no empty axes");
    if (r.step > 0) {
      e = slice_expr(t, e, shape, a, r.start, r.end, r.step, x.dtype());
    } else {  // a reversal: a gather at the positions, counting down
      std::vector<std::int64_t> ids;
      for (std::int64_t k = r.start; k > r.end; k += r.step) ids.push_back(k);
      e = gather_axis(t, e, shape, x.dtype(), a, ids);
    }
    shape[a] = count_of(r);
  }
  t.emit_as(e, to, x.onnx_type);
}

void split(Translator& t) {
  const Value& x = t.need(0);
  const std::size_t axis = static_cast<std::size_t>(axis_of(t, t.int_attr("axis", 0), x.rank()));
  std::vector<std::int64_t> sizes =
      t.input(1) ? constant_ints(t, 1, "split") : t.ints_attr("split");
  const int n = t.node().output_size();
  if (sizes.empty()) {
    const std::int64_t each = (x.shape[axis] + n - 1) / n;
    std::int64_t left = x.shape[axis];
    for (int i = 0; i < n; ++i) {
      sizes.push_back(std::min(each, left));
      left -= sizes.back();
    }
  }
  // ONNX's inference doesn't check a `split` input's values (fuzz_onnx_models's
  // eleventh find: a part ending past the axis, a program that didn't check).
  std::int64_t total = 0;
  bool fits = static_cast<int>(sizes.size()) == n;
  for (const auto size : sizes)
    fits = fits && size >= 0 && !__builtin_add_overflow(total, size, &total);
  if (!fits || total != x.shape[axis])
    t.unsupported("E2008", "Split's parts don't make its axis of " + std::to_string(x.shape[axis]) +
                               " in " + std::to_string(n) + " outputs");
  std::int64_t start = 0;
  const std::string whole = t.operand(x);
  for (int i = 0; i < n && i < static_cast<int>(sizes.size()); ++i) {
    std::vector<std::int64_t> to = x.shape;
    to[axis] = sizes[static_cast<std::size_t>(i)];
    if (to[axis] == 0)
      t.unsupported("E2007", "the Split leaves an output empty",
                    "shapescript's tensors have no empty axes");
    t.emit_as(slice_expr(t, whole, x.shape, axis, start, start + to[axis], 1, x.dtype()), to,
              x.onnx_type, i);
    start += to[axis];
  }
}

void gather(Translator& t) {
  const Value& x = t.need(0);
  const Value& ids = t.need(1);
  const std::size_t axis = static_cast<std::size_t>(axis_of(t, t.int_attr("axis", 0), x.rank()));
  std::vector<std::int64_t> to(x.shape.begin(),
                               x.shape.begin() + static_cast<std::ptrdiff_t>(axis));
  to.insert(to.end(), ids.shape.begin(), ids.shape.end());
  to.insert(to.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.shape.end());
  const std::int64_t n = x.shape[axis];
  if (ids.constant)
    for (std::int64_t i = 0; i < ids.constant->count(); ++i) {
      const std::int64_t k = ids.constant->int_at(static_cast<std::size_t>(i));
      if (k < -n || k >= n)
        t.unsupported("E2008", "index " + std::to_string(k) + " is out of range for an axis of " +
                                   std::to_string(n));
    }
  if (x.constant && ids.constant) {
    const auto s = strides_of(x.shape);
    const std::size_t ir = ids.rank();
    return t.fold(gather_flat(*x.constant, to, [&](const std::vector<std::int64_t>& i) {
      std::int64_t f = 0, flat_id = 0;
      const auto is = strides_of(ids.shape);
      for (std::size_t k = 0; k < ir; ++k) flat_id += i[axis + k] * is[k];
      std::int64_t id = ids.constant->int_at(static_cast<std::size_t>(flat_id));
      if (id < 0) id += n;
      for (std::size_t k = 0; k < axis; ++k) f += i[k] * s[k];
      f += id * s[axis];
      for (std::size_t k = axis + 1; k < x.rank(); ++k) f += i[k + ir - 1] * s[k];
      return f;
    }));
  }
  if (ids.constant && ids.rank() == 0) {  // one index: a slice, the axis dropped
    std::int64_t k = ids.constant->int_at(0);
    if (k < 0) k += n;
    const std::string dim = t.slicing_dim(n);
    std::string type = "[";
    for (std::size_t i = 0; i < x.rank(); ++i)
      type += (i ? " " : "") + (i == axis ? dim : std::to_string(x.shape[i]));
    type += "]";
    if (x.dtype() != "f32") type += " " + x.dtype();
    const std::string named = t.temp();
    t.let_typed(named, type, t.operand(x));
    return t.emit_as(named + "[" + dim + "=" + std::to_string(k) + "]", to, x.onnx_type);
  }
  if (ids.rank() == 0) t.unsupported("E2005", "a Gather of one computed index isn't supported");
  // The gathered axis first, as a dim-typed table, indexed by Index values.
  std::string table = t.operand(x);
  std::vector<std::int64_t> perm;
  perm.push_back(static_cast<std::int64_t>(axis));
  for (std::size_t i = 0; i < x.rank(); ++i)
    if (i != axis) perm.push_back(static_cast<std::int64_t>(i));
  table = transpose_expr(table, perm);
  const std::string dim = t.gather_dim(n);
  std::string type = "[" + dim;
  for (std::size_t i = 0; i < x.rank(); ++i)
    if (i != axis) type += " " + std::to_string(x.shape[i]);
  type += "]";
  if (x.dtype() != "f32") type += " " + x.dtype();
  const std::string named = t.temp();
  t.let_typed(named, type, table);
  std::string index = t.operand(ids);
  if (!ids.constant)
    index = "where(" + index + " < 0, " + index + " + " + std::to_string(n) + ", " + index + ")";
  else {
    bool negative = false;
    for (auto v : ids.constant->ints) negative = negative || v < 0;
    if (negative) {
      Constant c = *ids.constant;
      for (auto& v : c.ints) v = v < 0 ? v + n : v;
      const Value fixed = value_of(c);
      index = t.operand(fixed);
    }
  }
  const std::string gathered = named + "[Index[" + dim + "](" + index + ")]";
  // gathered: ids axes, then x's other axes in order; move the ids axes to `axis`.
  const std::size_t ir = ids.rank();
  std::vector<std::int64_t> back;
  for (std::size_t i = 0; i < axis; ++i) back.push_back(static_cast<std::int64_t>(ir + i));
  for (std::size_t i = 0; i < ir; ++i) back.push_back(static_cast<std::int64_t>(i));
  for (std::size_t i = axis + 1; i < x.rank(); ++i)
    back.push_back(static_cast<std::int64_t>(ir + i - 1));
  t.emit_as(transpose_expr(gathered, back), to, x.onnx_type);
}

void expand(Translator& t) {
  const Value& x = t.need(0);
  const auto dims = constant_ints(t, 1, "shape");
  bool ok = true;
  const auto to = broadcast_shape(x.shape, dims, &ok);
  if (!ok) t.unsupported("E2008", "an Expand to a shape the input doesn't broadcast to");
  t.emit_as(expand_expr(t.operand(x), x.shape, to), to, x.onnx_type);
}

void tile(Translator& t) {
  const Value& x = t.need(0);
  const auto reps = constant_ints(t, 1, "repeats");
  if (reps.size() != x.rank())
    t.unsupported("E2008", "Tile's repeats don't give one count per axis");
  std::vector<std::string> in, out, sizes;
  std::vector<std::int64_t> to;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    const std::string a = "a" + std::to_string(i), r = "r" + std::to_string(i);
    in.push_back(a);
    to.push_back(x.shape[i] * reps[i]);
    if (reps[i] == 1)
      out.push_back(a);
    else {
      out.push_back("(" + r + " " + a + ")");
      sizes.push_back(r + "=" + std::to_string(reps[i]));
    }
  }
  if (sizes.empty()) return t.emit_as(t.operand(x), to, x.onnx_type);
  t.emit_as("repeat(" + t.operand(x) + ", " + join(in) + " -> " + join(out) + ", " +
                join(sizes, ", ") + ")",
            to, x.onnx_type);
}

}  // namespace

void register_shapes(std::map<std::string, Handler>& table) {
  table["Shape"] = shape;
  table["Size"] = size;
  table["Constant"] = constant;
  table["ConstantOfShape"] = constant_of_shape;
  table["Reshape"] = reshape;
  table["Flatten"] = flatten;
  table["Squeeze"] = squeeze;
  table["Unsqueeze"] = unsqueeze;
  table["Transpose"] = transpose;
  table["Concat"] = concat;
  table["Slice"] = slice;
  table["Split"] = split;
  table["Gather"] = gather;
  table["Expand"] = expand;
  table["Tile"] = tile;
}

}  // namespace ss::onnx_import
