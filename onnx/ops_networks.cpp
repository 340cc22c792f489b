// The layers' ops: MatMul and Gemm (more to come: convolutions, pooling,
// normalisations).
#include "onnx/folding.hpp"
#include "onnx/ops.hpp"
#include "onnx/ops_common.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

void matmul(Translator& t) {
  const Value& a = t.need(0);
  const Value& b = t.need(1);
  if (a.onnx_type != TP::FLOAT || b.onnx_type != TP::FLOAT)
    t.unsupported("E2006",
                  "MatMul of " + onnx_type_name(a.onnx_type) + " isn't supported (float32 only)");
  const std::string x = t.operand(a), y = t.operand(b);
  if (a.rank() == 0 || b.rank() == 0) t.unsupported("E2008", "MatMul of a scalar");
  if (b.rank() <= 2) return t.emit(x + " @ " + y);  // tensordot over a's last axis
  // Batched: einsum over the batch axes, broadcast to one shape first.
  const std::size_t batch = std::max(a.rank(), b.rank()) - 2;
  std::vector<std::int64_t> out = t.out_shape();
  std::vector<std::int64_t> batch_shape(out.begin(),
                                        out.begin() + static_cast<std::ptrdiff_t>(batch));
  auto widen = [&](const Value& v, const std::string& e, bool vector_is_row) {
    std::vector<std::int64_t> to = batch_shape;
    if (v.rank() == 1) return std::pair{e, v.shape};
    to.push_back(v.shape[v.rank() - 2]);
    to.push_back(v.shape[v.rank() - 1]);
    (void)vector_is_row;
    return std::pair{expand_expr(e, v.shape, to), to};
  };
  auto [ea, sa] = widen(a, x, true);
  auto [eb, sb] = widen(b, y, false);
  const auto batch_names = axis_names(batch, "n");
  std::string pa = join(batch_names), pb = pa, po = pa;
  if (sa.size() == 1)
    pa = "k";
  else
    pa += " i k";
  if (sb.size() == 1)
    pb = "k";
  else
    pb += " k j";
  if (sa.size() != 1) po += " i";
  if (sb.size() != 1) po += " j";
  t.emit("einsum(" + ea + ", " + eb + ", " + pa + ", " + pb + " -> " + po + ")");
}

void gemm(Translator& t) {
  const Value& a = t.need(0);
  const Value& b = t.need(1);
  if (a.onnx_type != TP::FLOAT)
    t.unsupported("E2006",
                  "Gemm of " + onnx_type_name(a.onnx_type) + " isn't supported (float32 only)");
  std::string x = t.operand(a), y;
  if (t.int_attr("transA", 0)) x = transpose_expr(x, {1, 0});
  if (t.int_attr("transB", 0) && b.constant && b.expr.empty() && !b.frozen && b.rank() == 2) {
    // A weight transposed once, at import, not at every call.
    const auto s = strides_of(b.shape);
    y = t.param_operand(
        gather_flat(*b.constant, {b.shape[1], b.shape[0]},
                    [&](const std::vector<std::int64_t>& i) { return i[0] + i[1] * s[0]; }),
        t.name_of(b), "transposed");
  } else {
    y = t.operand(b);
    if (t.int_attr("transB", 0)) y = transpose_expr(y, {1, 0});
  }
  std::string e = x + " @ " + y;
  const float alpha = t.float_attr("alpha", 1.0f), beta = t.float_attr("beta", 1.0f);
  if (alpha != 1.0f) e = Translator::literal(alpha, "f32") + " * (" + e + ")";
  if (const Value* c = t.input(2)) {
    std::string z = t.operand(*c);
    if (beta != 1.0f) z = Translator::literal(beta, "f32") + " * " + z;
    e += " + " + z;
  }
  t.emit(e);
}

}  // namespace

void register_networks(std::map<std::string, Handler>& table) {
  table["MatMul"] = matmul;
  table["Gemm"] = gemm;
}

}  // namespace ss::onnx_import
