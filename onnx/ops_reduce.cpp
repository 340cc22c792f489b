// Reductions (ReduceSum ... ReduceLogSumExp, ArgMax, ArgMin) and the ops
// along one axis (Softmax, LogSoftmax).
#include <algorithm>

#include "onnx/ops.hpp"
#include "onnx/ops_common.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

bool is_float_type(int t) {
  return t == TP::FLOAT || t == TP::FLOAT16 || t == TP::BFLOAT16;
}

// keepdims: ONNX's inference keeps the axes for 1 only, where the
// translation once kept them for anything but 0 (fuzz_onnx's twentieth
// find); another value is refused.
bool keep_dims(Translator& t) {
  const std::int64_t keep = t.int_attr("keepdims", 1);
  if (keep != 0 && keep != 1)
    t.unsupported("E2008", "keepdims " + std::to_string(keep) + " isn't 0 or 1");
  return keep == 1;
}

// The reduced axes (sorted, distinct), or empty for none at all (the
// identity, noop_with_empty_axes); every axis when none are named.
std::vector<std::int64_t> reduced_axes(Translator& t, const Value& x, bool* noop) {
  std::vector<std::int64_t> axes;
  if (t.has("axes"))
    axes = t.ints_attr("axes");
  else if (t.input(1))
    axes = constant_ints(t, 1, "axes");
  *noop = false;
  if (axes.empty()) {
    if (t.int_attr("noop_with_empty_axes", 0)) {
      *noop = true;
      return {};
    }
    for (std::size_t i = 0; i < x.rank(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  for (auto& a : axes) a = axis_of(t, a, x.rank());
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

enum Kind { kSum, kMean, kMax, kMin, kL1, kL2, kSumSquare, kLogSum, kLogSumExp };

template <Kind K>
void reduce_op(Translator& t) {
  const Value& x = t.need(0);
  if (x.dtype().empty() || x.dtype() == "bool")
    t.unsupported("E2006", "`" + t.node().op_type() + "` of " + onnx_type_name(x.onnx_type) +
                               " isn't supported");
  bool noop = false;
  const auto axes = reduced_axes(t, x, &noop);
  const bool keep = keep_dims(t);
  std::string v = t.operand(x);
  const bool is_float = is_float_type(x.onnx_type);
  if (!is_float && (K == kMean || K == kL2 || K == kLogSum || K == kLogSumExp))
    t.unsupported("E2006", "`" + t.node().op_type() + "` of integers isn't supported");
  if (noop) {
    if (K == kL1) return t.emit("abs(" + v + ")");
    if (K == kL2) return t.emit("abs(" + v + ")");
    if (K == kSumSquare) return t.emit(v + " * " + v);
    if (K == kLogSum) return t.emit("log(" + v + ")");
    return t.emit(v);
  }
  if (x.rank() == 0) return t.emit(v);  // nothing to reduce
  for (auto a : axes)
    if (x.shape[static_cast<std::size_t>(a)] == 0)
      t.unsupported("E2007", "a reduction over an empty axis",
                    "shapescript's tensors have no empty axes");
  const std::string over = ", over=" + over_text(axes) + (keep ? ", keep=true" : "") + ")";
  switch (K) {
    case kSum:
      return t.emit("sum(" + v + over);
    case kMean:
      return t.emit("mean(" + v + over);
    case kMax:
      return t.emit("max(" + v + over);
    case kMin:
      return t.emit("min(" + v + over);
    case kL1:
      return t.emit("sum(abs(" + v + ")" + over);
    case kL2:
      return t.emit("sqrt(sum(" + v + " * " + v + over + ")");
    case kSumSquare:
      return t.emit("sum(" + v + " * " + v + over);
    case kLogSum:
      return t.emit("log(sum(" + v + over + ")");
    case kLogSumExp:
      return t.emit("logsumexp(" + v + over);
  }
}

template <bool Max>
void arg_op(Translator& t) {
  const Value& x = t.need(0);
  if (t.int_attr("select_last_index", 0))
    t.unsupported("E2005",
                  "select_last_index=1 isn't supported (shapescript's argmax takes the first)");
  if (!is_float_type(x.onnx_type))
    t.unsupported("E2006", "`" + t.node().op_type() + "` of " + onnx_type_name(x.onnx_type) +
                               " isn't supported");
  const std::int64_t axis = axis_of(t, t.int_attr("axis", 0), x.rank());
  const bool keep = keep_dims(t);
  const std::string v = Max ? t.operand(x) : "-" + t.operand(x);
  t.emit("i32(argmax(" + v + ", over=" + std::to_string(axis) + (keep ? ", keep=true" : "") + "))");
}

template <bool Log>
void softmax(Translator& t) {
  const Value& x = t.need(0);
  if (!is_float_type(x.onnx_type))
    t.unsupported("E2006", "Softmax of " + onnx_type_name(x.onnx_type));
  const std::int64_t axis = axis_of(t, t.int_attr("axis", -1), x.rank());
  t.emit(std::string(Log ? "log_softmax(" : "softmax(") + t.operand(x) +
         ", over=" + std::to_string(axis) + ")");
}

// TopK: the sorted axis's first k, largest first (as the negated values
// sort ascending) or smallest; equal values in their index order.
void top_k(Translator& t) {
  const Value& x = t.need(0);
  if (!is_float_type(x.onnx_type)) t.unsupported("E2006", "TopK of " + onnx_type_name(x.onnx_type));
  const auto k = constant_ints(t, 1, "k").at(0);
  const std::size_t axis = static_cast<std::size_t>(axis_of(t, t.int_attr("axis", -1), x.rank()));
  const bool largest = t.int_attr("largest", 1) != 0;
  const std::int64_t n = x.shape[axis];
  if (k < 1 || k > n)
    t.unsupported("E2007", "TopK's k of " + std::to_string(k) +
                               " leaves no elements, or more than the axis has");
  const std::string v = largest ? "-" + t.operand(x) : t.operand(x);
  const std::string over = ", over=" + std::to_string(axis) + ")";
  std::string values = slice_expr(t, t.let("sort(" + v + over), x.shape, axis, 0, k, 1, x.dtype());
  if (largest) values = "-" + values;
  const std::string ids =
      slice_expr(t, t.let("i32(argsort(" + v + over + ")"), x.shape, axis, 0, k, 1, "i32");
  t.emit(values, 0);
  if (t.node().output_size() > 1 && !t.node().output(1).empty()) t.emit(ids, 1);
}

// ReduceProd, exactly: the reduced axes moved last and joined, padded with
// ones to a power of two, then halved pairwise until one element is left.
void reduce_prod(Translator& t) {
  const Value& x = t.need(0);
  if (!is_float_type(x.onnx_type))
    t.unsupported("E2006", "ReduceProd of " + onnx_type_name(x.onnx_type));
  bool noop = false;
  const auto axes = reduced_axes(t, x, &noop);
  if (noop || x.rank() == 0) return t.emit(t.operand(x));
  std::vector<std::int64_t> perm, kept;
  std::int64_t n = 1;
  for (std::size_t i = 0; i < x.rank(); ++i)
    if (std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(i)) == axes.end()) {
      perm.push_back(static_cast<std::int64_t>(i));
      kept.push_back(x.shape[i]);
    }
  for (auto a : axes) {
    perm.push_back(a);
    n *= x.shape[static_cast<std::size_t>(a)];
  }
  if (n == 0) t.unsupported("E2007", "a product over an empty axis");
  std::vector<std::int64_t> moved;
  for (auto p : perm) moved.push_back(x.shape[static_cast<std::size_t>(p)]);
  std::vector<std::int64_t> shape = kept;
  shape.push_back(n);
  std::string v =
      t.let(reshape_expr(t, transpose_expr(t.operand(x), perm), moved, shape, x.dtype()));
  std::int64_t p = 1;
  while (p < n) p *= 2;
  const std::size_t last = kept.size();
  if (p != n)
    v = t.let("pad(" + v + ", over=" + std::to_string(last) + ", after=" + std::to_string(p - n) +
              ", value=1.0)");
  const auto names = axis_names(kept.size());
  while (p > 1) {
    const std::string two = t.slicing_dim(2);
    std::string halves_type = "[";
    for (auto k : kept) halves_type += std::to_string(k) + " ";
    halves_type += std::to_string(p / 2) + " " + two + "]";
    if (x.dtype() != "f32") halves_type += " " + x.dtype();
    const std::string halves = t.temp();
    t.let_typed(halves, halves_type,
                "rearrange(" + v + ", " + join(names) + (names.empty() ? "" : " ") + "(g h) -> " +
                    join(names) + (names.empty() ? "" : " ") + "g h, h=2)");
    v = t.let(halves + "[" + two + "=0] * " + halves + "[" + two + "=1]");
    p /= 2;
  }
  shape.back() = 1;
  t.emit(reshape_expr(t, v, shape, t.out_shape(), x.dtype()));
}

// CumSum: log2(n) steps, each adding the running sums shifted by a power
// of two (zeros shifted in); reversed before and after for `reverse`.
void cum_sum(Translator& t) {
  const Value& x = t.need(0);
  if (x.dtype() != "f32" && x.dtype() != "i32")
    t.unsupported("E2006", "CumSum of " + onnx_type_name(x.onnx_type));
  const std::size_t axis =
      static_cast<std::size_t>(axis_of(t, constant_ints(t, 1, "axis").at(0), x.rank()));
  const std::int64_t n = x.shape[axis];
  std::vector<std::int64_t> reversed;
  for (std::int64_t i = n - 1; i >= 0; --i) reversed.push_back(i);
  const bool reverse = t.int_attr("reverse", 0) != 0;
  std::string v = t.operand(x);
  if (reverse) v = gather_axis(t, v, x.shape, x.dtype(), axis, reversed);
  const std::string zero = Translator::literal(0, x.dtype() == "i32" ? "f32" : x.dtype());
  auto shifted = [&](const std::string& e, std::int64_t by) {
    std::vector<std::int64_t> padded = x.shape;
    padded[axis] += by;
    const std::string p = t.let("pad(" + e + ", over=" + std::to_string(axis) +
                                ", before=" + std::to_string(by) + ", value=" + zero + ")");
    return slice_expr(t, p, padded, axis, 0, n, 1, x.dtype());
  };
  v = t.let(v);
  if (t.int_attr("exclusive", 0)) v = t.let(shifted(v, 1));
  for (std::int64_t by = 1; by < n; by *= 2) v = t.let(v + " + " + shifted(v, by));
  if (reverse) v = gather_axis(t, v, x.shape, x.dtype(), axis, reversed);
  t.emit(v);
}

}  // namespace

void register_reductions(std::map<std::string, Handler>& table) {
  table["ReduceSum"] = reduce_op<kSum>;
  table["ReduceMean"] = reduce_op<kMean>;
  table["ReduceMax"] = reduce_op<kMax>;
  table["ReduceMin"] = reduce_op<kMin>;
  table["ReduceL1"] = reduce_op<kL1>;
  table["ReduceL2"] = reduce_op<kL2>;
  table["ReduceSumSquare"] = reduce_op<kSumSquare>;
  table["ReduceLogSum"] = reduce_op<kLogSum>;
  table["ReduceLogSumExp"] = reduce_op<kLogSumExp>;
  table["ArgMax"] = arg_op<true>;
  table["ArgMin"] = arg_op<false>;
  table["Softmax"] = softmax<false>;
  table["TopK"] = top_k;
  table["ReduceProd"] = reduce_prod;
  table["CumSum"] = cum_sum;
  table["LogSoftmax"] = softmax<true>;
}

}  // namespace ss::onnx_import
