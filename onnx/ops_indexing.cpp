// Ops that pick elements by position: GatherElements (a one-hot mask of
// each index), OneHot, EyeLike, Hardmax, Pad (constant through `pad`; edge
// and reflect through gathers at positions computed at import),
// DepthToSpace and SpaceToDepth (rearranges).
#include <algorithm>

#include "onnx/folding.hpp"
#include "onnx/ops.hpp"
#include "onnx/ops_common.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

// 0..n-1 along axis `axis` of a tensor of rank `rank` (ones elsewhere).
Value positions(std::int64_t n, std::size_t axis, std::size_t rank) {
  std::vector<std::int64_t> shape(rank, 1), values;
  shape[axis] = n;
  for (std::int64_t i = 0; i < n; ++i) values.push_back(i);
  return value_of(ints_constant(std::move(values), std::move(shape), TP::INT32));
}

void gather_elements(Translator& t) {
  const Value& x = t.need(0);
  const Value& ids = t.need(1);
  if (x.dtype() == "bool" || x.dtype().empty())
    t.unsupported("E2006", "GatherElements of " + onnx_type_name(x.onnx_type));
  const std::size_t axis = static_cast<std::size_t>(axis_of(t, t.int_attr("axis", 0), x.rank()));
  if (ids.rank() != x.rank()) t.unsupported("E2008", "its indices' rank isn't the data's");
  for (std::size_t i = 0; i < x.rank(); ++i)
    if (i != axis && ids.shape[i] != x.shape[i])
      t.unsupported("E2005",
                    "indices narrower than the data on an axis not gathered aren't supported");
  const std::int64_t n = x.shape[axis];
  const std::size_t r = x.rank();
  // mask[..., m, k] = (ids[..., m] == k) along a new last axis k.
  std::vector<std::int64_t> ids_k = ids.shape, x_k = x.shape;
  ids_k.push_back(1);
  x_k[axis] = 1;
  x_k.push_back(n);
  std::string index = t.operand(ids);
  if (!ids.constant)
    index = "where(" + index + " < 0, " + index + " + " + std::to_string(n) + ", " + index + ")";
  const std::string mask = t.let(reshape_expr(t, index, ids.shape, ids_k, "i32") +
                                 " == " + t.operand(positions(n, r, r + 1)));
  std::vector<std::int64_t> perm;  // x with its axis moved last, a 1 in its place
  for (std::size_t i = 0; i < r; ++i)
    if (i != axis) perm.push_back(static_cast<std::int64_t>(i));
  perm.push_back(static_cast<std::int64_t>(axis));
  std::vector<std::int64_t> moved;
  for (auto p : perm) moved.push_back(x.shape[static_cast<std::size_t>(p)]);
  std::vector<std::int64_t> with_one = moved;
  with_one.insert(with_one.begin() + static_cast<std::ptrdiff_t>(axis), 1);
  const std::string xs =
      reshape_expr(t, transpose_expr(t.operand(x), perm), moved, with_one, x.dtype());
  t.emit("sum(where(" + mask + ", " + xs + ", " + Translator::literal(0, x.dtype()) +
         "), over=" + std::to_string(r) + ")");
}

void one_hot(Translator& t) {
  const Value& ids = t.need(0);
  const Value& depth = t.need(1);
  const Value& values = t.need(2);
  if (!depth.constant) t.unsupported("E2007", "OneHot's depth is computed from the model's inputs");
  const auto n = static_cast<std::int64_t>(depth.constant->at(0));
  const std::size_t r = ids.rank() + 1;
  const std::size_t axis = static_cast<std::size_t>(axis_of(t, t.int_attr("axis", -1), r));
  std::vector<std::int64_t> ids_shape = ids.shape;
  ids_shape.insert(ids_shape.begin() + static_cast<std::ptrdiff_t>(axis), 1);
  std::string index = t.operand(ids);
  if (ids.dtype() != "i32") index = "i32(" + index + ")";
  index = "where(" + index + " < 0, " + index + " + " + std::to_string(n) + ", " + index + ")";
  const std::string mask = reshape_expr(t, index, ids.shape, ids_shape, "i32") +
                           " == " + t.operand(positions(n, axis, r));
  if (values.rank() != 1 || values.shape[0] != 2)
    t.unsupported("E2008", "OneHot's values aren't [off, on]");
  const std::string v = t.let(t.operand(values));
  const std::string off = gather_axis(t, v, values.shape, values.dtype(), 0, {0});
  const std::string on = gather_axis(t, v, values.shape, values.dtype(), 0, {1});
  t.emit("where(" + mask + ", " + on + ", " + off + ")");
}

void eye_like(Translator& t) {
  const Value& x = t.need(0);
  if (x.rank() != 2) t.unsupported("E2008", "EyeLike needs a matrix");
  const int type = t.has("dtype") ? static_cast<int>(t.int_attr("dtype", 1)) : x.onnx_type;
  const std::int64_t k = t.int_attr("k", 0);
  Constant c;
  c.onnx_type = type;
  c.shape = x.shape;
  for (std::int64_t i = 0; i < x.shape[0]; ++i)
    for (std::int64_t j = 0; j < x.shape[1]; ++j) {
      if (c.is_float())
        c.floats.push_back(j - i == k);
      else
        c.ints.push_back(j - i == k);
    }
  if (c.is_float()) {
    if (ss_dtype(type).empty()) t.unsupported("E2006", "EyeLike of " + onnx_type_name(type));
    return t.emit(frozen_floats(t, c.floats, c.shape, ss_dtype(type)));
  }
  t.fold(c);
}

void hardmax(Translator& t) {
  const Value& x = t.need(0);
  if (x.dtype() != "f32" && x.dtype() != "f16")
    t.unsupported("E2006", "Hardmax of " + onnx_type_name(x.onnx_type));
  const std::size_t axis = static_cast<std::size_t>(axis_of(t, t.int_attr("axis", -1), x.rank()));
  const std::string first =
      "i32(argmax(" + t.operand(x) + ", over=" + std::to_string(axis) + ", keep=true))";
  t.emit("where(" + first + " == " + t.operand(positions(x.shape[axis], axis, x.rank())) + ", " +
         Translator::literal(1, x.dtype()) + ", " + Translator::literal(0, x.dtype()) + ")");
}

void pad(Translator& t) {
  const Value& x = t.need(0);
  const auto pads = constant_ints(t, 1, "pads");
  const std::string mode = t.string_attr("mode", "constant");
  std::vector<std::int64_t> axes;
  if (t.input(3))
    axes = constant_ints(t, 3, "axes");
  else
    for (std::size_t i = 0; i < x.rank(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (pads.size() != 2 * axes.size())
    t.unsupported("E2008", "its pads don't give two sizes per axis");
  std::string value = Translator::literal(0, "f32");
  if (const Value* v = t.input(2)) {
    if (!v->constant) t.unsupported("E2007", "Pad's value is computed from the model's inputs");
    value = Translator::literal(v->constant->at(0), "f32");
  }
  if (x.dtype() != "f32" && mode == "constant")
    t.unsupported("E2006", "a constant Pad of " + onnx_type_name(x.onnx_type));
  std::string e = t.operand(x);
  std::vector<std::int64_t> shape = x.shape;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<std::size_t>(axis_of(t, axes[i], x.rank()));
    const std::int64_t before = pads[i], after = pads[i + axes.size()];
    if (before == 0 && after == 0) continue;
    const std::int64_t n = shape[a];
    if (before < 0 || after < 0) {  // cropping
      std::vector<std::int64_t> ids;
      for (std::int64_t k = std::max<std::int64_t>(0, -before);
           k < n - std::max<std::int64_t>(0, -after); ++k)
        ids.push_back(k);
      if (ids.empty()) t.unsupported("E2007", "the Pad leaves an axis empty");
      e = gather_axis(t, e, shape, x.dtype(), a, ids);
      shape[a] = static_cast<std::int64_t>(ids.size());
      if (before < 0 && after < 0) continue;
    }
    const std::int64_t b = std::max<std::int64_t>(0, before), f = std::max<std::int64_t>(0, after);
    if (b == 0 && f == 0) continue;
    if (mode == "constant") {
      e = "pad(" + e + ", over=" + std::to_string(a) + ", before=" + std::to_string(b) +
          ", after=" + std::to_string(f) + ", value=" + value + ")";
    } else {
      const std::int64_t m = shape[a];
      std::vector<std::int64_t> ids;
      for (std::int64_t k = -b; k < m + f; ++k) {
        std::int64_t j = k;
        if (mode == "edge")
          j = std::clamp<std::int64_t>(k, 0, m - 1);
        else if (mode == "reflect") {
          if (m == 1)
            j = 0;
          else {
            const std::int64_t period = 2 * (m - 1);
            j = ((k % period) + period) % period;
            if (j >= m) j = period - j;
          }
        } else {
          t.unsupported("E2005", "Pad mode `" + mode + "`");
        }
        ids.push_back(j);
      }
      e = gather_axis(t, e, shape, x.dtype(), a, ids);
    }
    shape[a] += b + f;
  }
  t.emit(e);
}

void depth_to_space(Translator& t) {
  const Value& x = t.need(0);
  if (x.rank() != 4) t.unsupported("E2008", "DepthToSpace needs N C H W");
  const std::int64_t b = t.int_attr("blocksize", 1);
  const std::string mode = t.string_attr("mode", "DCR");
  const std::string sizes = ", b1=" + std::to_string(b) + ", b2=" + std::to_string(b) + ")";
  if (mode == "DCR")
    t.emit("rearrange(" + t.operand(x) + ", n (b1 b2 c) h w -> n c (h b1) (w b2)" + sizes);
  else
    t.emit("rearrange(" + t.operand(x) + ", n (c b1 b2) h w -> n c (h b1) (w b2)" + sizes);
}

void space_to_depth(Translator& t) {
  const Value& x = t.need(0);
  if (x.rank() != 4) t.unsupported("E2008", "SpaceToDepth needs N C H W");
  const std::int64_t b = t.int_attr("blocksize", 1);
  t.emit("rearrange(" + t.operand(x) + ", n c (h b1) (w b2) -> n (b1 b2 c) h w, b1=" +
         std::to_string(b) + ", b2=" + std::to_string(b) + ")");
}

// Compress: the positions its condition keeps (known at import), gathered.
void compress(Translator& t) {
  const Value& x = t.need(0);
  const Value& condition = t.need(1);
  if (!condition.constant) constant_ints(t, 1, "condition");  // E2007
  std::string e = t.operand(x);
  std::vector<std::int64_t> shape = x.shape;
  std::size_t axis = 0;
  if (t.has("axis")) {
    axis = static_cast<std::size_t>(axis_of(t, t.int_attr("axis", 0), x.rank()));
  } else {  // the input flattened
    shape = {x.count()};
    e = reshape_expr(t, e, x.shape, shape, x.dtype());
  }
  std::vector<std::int64_t> ids;
  for (std::int64_t i = 0; i < condition.constant->count() && i < shape[axis]; ++i)
    if (condition.constant->int_at(static_cast<std::size_t>(i))) ids.push_back(i);
  if (ids.empty())
    t.unsupported("E2007", "the Compress keeps nothing",
                  "shapescript's tensors have no empty axes");
  t.emit(gather_axis(t, e, shape, x.dtype(), axis, ids));
}

// LRN: each channel over the square sum of its window of channels, the
// window's shifted copies of the (zero-padded) squares summed.
void lrn(Translator& t) {
  const Value& x = t.need(0);
  if (x.dtype() != "f32") t.unsupported("E2006", "LRN of " + onnx_type_name(x.onnx_type));
  if (x.rank() < 3) t.unsupported("E2008", "LRN needs N C ...");
  const std::int64_t size = t.int_attr("size", 1), c = x.shape[1];
  const float alpha = t.float_attr("alpha", 0.0001f), beta = t.float_attr("beta", 0.75f),
              bias = t.float_attr("bias", 1.0f);
  const std::int64_t before = (size - 1) / 2, after = size - 1 - before;
  const std::string v = t.operand(x);
  std::vector<std::int64_t> padded = x.shape;
  padded[1] += before + after;
  const std::string squares =
      t.let("pad(" + v + " * " + v + ", over=1, before=" + std::to_string(before) +
            ", after=" + std::to_string(after) + ", value=0.0)");
  std::string sum;
  for (std::int64_t k = 0; k < size; ++k) {
    std::vector<std::int64_t> ids;
    for (std::int64_t i = 0; i < c; ++i) ids.push_back(i + k);
    const std::string shifted = gather_axis(t, squares, padded, "f32", 1, ids);
    sum = t.let(sum.empty() ? shifted : sum + " + " + shifted);
  }
  t.emit(v + " / (" + Translator::literal(bias, "f32") + " + " +
         Translator::literal(alpha / static_cast<float>(size), "f32") + " * " + sum + ") ** " +
         Translator::literal(beta, "f32"));
}

// GatherND of indices known at import: the data's leading axes flattened,
// gathered at the flat positions the index tuples name.
void gather_nd(Translator& t) {
  const Value& x = t.need(0);
  const Value& ids = t.need(1);
  if (t.int_attr("batch_dims", 0) != 0)
    t.unsupported("E2005", "GatherND with batch_dims isn't supported");
  if (!ids.constant) constant_ints(t, 1, "indices");  // E2007
  const std::size_t k = static_cast<std::size_t>(ids.shape.back());
  if (k > x.rank()) t.unsupported("E2008", "its index tuples are longer than the data's rank");
  std::vector<std::int64_t> lead(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(k));
  std::vector<std::int64_t> rest(x.shape.begin() + static_cast<std::ptrdiff_t>(k), x.shape.end());
  std::int64_t n = 1;
  for (auto d : lead) n *= d;
  const auto st = strides_of(lead);
  std::vector<std::int64_t> flat;
  for (std::int64_t i = 0; i < ids.count(); i += static_cast<std::int64_t>(k)) {
    std::int64_t f = 0;
    for (std::size_t j = 0; j < k; ++j) {
      std::int64_t v = ids.constant->int_at(static_cast<std::size_t>(i) + j);
      if (v < 0) v += lead[j];
      if (v < 0 || v >= lead[j])
        t.unsupported("E2008", "index " + std::to_string(v) + " is out of range");
      f += v * st[j];
    }
    flat.push_back(f);
  }
  std::vector<std::int64_t> table = {n};
  table.insert(table.end(), rest.begin(), rest.end());
  const std::string gathered = gather_axis(
      t, reshape_expr(t, t.operand(x), x.shape, table, x.dtype()), table, x.dtype(), 0, flat);
  std::vector<std::int64_t> got = {static_cast<std::int64_t>(flat.size())};
  got.insert(got.end(), rest.begin(), rest.end());
  t.emit(reshape_expr(t, gathered, got, t.out_shape(), x.dtype()));
}

// ScatterND and ScatterElements (reduction none) of indices known at
// import: each written position takes its update (the last one written
// there), every other keeps the data's element, as a gather of the updates
// and a constant mask.
void scatter_at(Translator& t, const Value& x, const std::vector<std::int64_t>& target,
                const Value& updates) {
  if (updates.count() != static_cast<std::int64_t>(target.size()))
    t.unsupported("E2008", "the scatter's updates hold " + std::to_string(updates.count()) +
                               " values for " + std::to_string(target.size()) + " places");
  std::vector<std::int64_t> source(static_cast<std::size_t>(x.count()), 0);
  std::vector<std::int64_t> written(static_cast<std::size_t>(x.count()), 0);
  for (std::size_t u = 0; u < target.size(); ++u) {
    source[static_cast<std::size_t>(target[u])] = static_cast<std::int64_t>(u);
    written[static_cast<std::size_t>(target[u])] = 1;
  }
  const std::vector<std::int64_t> flat_x = {x.count()}, flat_u = {updates.count()};
  const std::string ups =
      reshape_expr(t, t.operand(updates), updates.shape, flat_u, updates.dtype());
  const std::string picked = gather_axis(t, t.let(ups), flat_u, updates.dtype(), 0, source);
  const std::string mask =
      t.operand(value_of(ints_constant(written, flat_x, onnx::TensorProto::BOOL)));
  const std::string e = "where(" + mask + ", " + picked + ", " +
                        reshape_expr(t, t.operand(x), x.shape, flat_x, x.dtype()) + ")";
  t.emit(reshape_expr(t, t.let(e), flat_x, x.shape, x.dtype()));
}

void scatter_nd(Translator& t) {
  const Value& x = t.need(0);
  const Value& ids = t.need(1);
  if (t.string_attr("reduction", "none") != "none")
    t.unsupported("E2005", "ScatterND with a reduction isn't supported");
  if (!ids.constant) constant_ints(t, 1, "indices");
  // ONNX's inference checks neither the indices' last axis nor their
  // values: each checked here (an index past the data wrote past the
  // translator's tables: fuzz_onnx_models's first find).
  if (ids.shape.empty() || ids.shape.back() < 1 ||
      ids.shape.back() > static_cast<std::int64_t>(x.rank()))
    t.unsupported("E2008", "ScatterND's indices need a last axis of 1 to the data's " +
                               std::to_string(x.rank()) + " axes");
  const std::size_t k = static_cast<std::size_t>(ids.shape.back());
  std::vector<std::int64_t> lead(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(k));
  std::int64_t inner = 1;
  for (std::size_t i = k; i < x.rank(); ++i) inner *= x.shape[i];
  const auto st = strides_of(x.shape);
  std::vector<std::int64_t> target;
  for (std::int64_t i = 0; i < ids.count(); i += static_cast<std::int64_t>(k)) {
    std::int64_t f = 0;
    for (std::size_t j = 0; j < k; ++j) {
      std::int64_t v = ids.constant->int_at(static_cast<std::size_t>(i) + j);
      if (v < 0) v += lead[j];
      if (v < 0 || v >= lead[j])
        t.unsupported("E2008",
                      "ScatterND's index " +
                          std::to_string(ids.constant->int_at(static_cast<std::size_t>(i) + j)) +
                          " is out of range for an axis of " + std::to_string(lead[j]));
      f += v * st[j];
    }
    for (std::int64_t e = 0; e < inner; ++e) target.push_back(f + e);
  }
  scatter_at(t, x, target, t.need(2));
}

void scatter_elements(Translator& t) {
  const Value& x = t.need(0);
  const Value& ids = t.need(1);
  if (t.string_attr("reduction", "none") != "none")
    t.unsupported("E2005", "ScatterElements with a reduction isn't supported");
  if (!ids.constant) constant_ints(t, 1, "indices");
  const std::size_t axis = static_cast<std::size_t>(axis_of(t, t.int_attr("axis", 0), x.rank()));
  if (ids.rank() != x.rank())
    t.unsupported("E2008",
                  "ScatterElements' indices need the data's " + std::to_string(x.rank()) + " axes");
  for (std::size_t a = 0; a < x.rank(); ++a)
    if (a != axis && ids.shape[a] > x.shape[a])
      t.unsupported("E2008", "ScatterElements' indices are longer than the data on axis " +
                                 std::to_string(a));
  const auto sx = strides_of(x.shape), si = strides_of(ids.shape);
  std::vector<std::int64_t> target;
  for (std::int64_t i = 0; i < ids.count(); ++i) {
    std::int64_t rest = i, f = 0;
    for (std::size_t a = 0; a < ids.rank(); ++a) {
      const std::int64_t at = rest / si[a];
      rest %= si[a];
      std::int64_t v = at;
      if (a == axis) {
        v = ids.constant->int_at(static_cast<std::size_t>(i));
        if (v < 0) v += x.shape[axis];
        if (v < 0 || v >= x.shape[axis])
          t.unsupported("E2008",
                        "ScatterElements' index " +
                            std::to_string(ids.constant->int_at(static_cast<std::size_t>(i))) +
                            " is out of range for an axis of " + std::to_string(x.shape[axis]));
      }
      f += v * sx[a];
    }
    target.push_back(f);
  }
  scatter_at(t, x, target, t.need(2));
}

}  // namespace

void register_indexing(std::map<std::string, Handler>& table) {
  table["GatherElements"] = gather_elements;
  table["Compress"] = compress;
  table["GatherND"] = gather_nd;
  table["ScatterND"] = scatter_nd;
  table["ScatterElements"] = scatter_elements;
  table["Scatter"] = scatter_elements;
  table["LRN"] = lrn;
  table["OneHot"] = one_hot;
  table["EyeLike"] = eye_like;
  table["Hardmax"] = hardmax;
  table["Pad"] = pad;
  table["DepthToSpace"] = depth_to_space;
  table["SpaceToDepth"] = space_to_depth;
}

}  // namespace ss::onnx_import
