// The losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss, as a
// mask of each example's class (its label against the class ids), the
// picked log-probabilities weighted and reduced as ONNX's reference does.
#include "onnx/ops.hpp"
#include "onnx/ops_common.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

// `log_prob` ([N C d...]) at each example's label: the loss (before the
// reduction) and its weight, as two variables.
void nll(Translator& t, const std::string& log_prob, const std::vector<std::int64_t>& shape,
         const std::string& dtype, const Value& target, const Value* weight, int out) {
  if (shape.size() < 2) t.unsupported("E2008", "the scores need a class axis (N C ...)");
  if (target.dtype() != "i32")
    t.unsupported("E2006", "labels of " + onnx_type_name(target.onnx_type));
  const std::int64_t classes = shape[1];
  const std::size_t extra = shape.size() - 2;
  // ONNX's inference doesn't hold the weight to C (fuzz_onnx's tenth find).
  std::vector<std::int64_t> target_shape = shape;
  target_shape.erase(target_shape.begin() + 1);
  bool same = target.shape.size() == target_shape.size();
  for (std::size_t i = 0; same && i < target_shape.size(); ++i)
    same = sizes_fit(target.shape[i], target_shape[i]);
  if (!same) t.unsupported("E2008", "the labels' shape isn't the scores' without their class axis");
  if (weight && (weight->rank() != 1 || (weight->shape[0] != classes && classes >= 0)))
    t.unsupported(
        "E2008", "the weight needs the shape [" + std::to_string(classes) + "], one value a class");
  // The class ids, [C 1 ... 1], against the labels with a class axis of 1.
  Constant ids;
  ids.onnx_type = TP::INT32;
  ids.shape = {classes};
  for (std::size_t i = 0; i < extra; ++i) ids.shape.push_back(1);
  for (std::int64_t c = 0; c < classes; ++c) ids.ints.push_back(c);
  const Value id_value = value_of(ids);
  std::vector<std::int64_t> target_with_class = target.shape;
  target_with_class.insert(target_with_class.begin() + 1, 1);
  const std::string labels =
      t.let(reshape_expr(t, t.operand(target), target.shape, target_with_class, "i32"));
  const std::string mask = t.let(labels + " == " + t.operand(id_value));
  const std::string zero = Translator::literal(0, dtype);
  const std::string picked =
      t.let("sum(where(" + mask + ", " + log_prob + ", " + zero + "), over=1)");
  std::string w;
  if (weight) {
    std::vector<std::int64_t> wshape = {classes};
    for (std::size_t i = 0; i < extra; ++i) wshape.push_back(1);
    const std::string wb = reshape_expr(t, t.operand(*weight), weight->shape, wshape, dtype);
    w = "sum(where(" + mask + ", " + wb + ", " + zero + "), over=1)";
  } else {
    w = "where(" + t.operand(target) + " == " + t.operand(target) + ", " +
        Translator::literal(1, dtype) + ", " + zero + ")";
  }
  if (t.has("ignore_index"))
    w = "where(" + t.operand(target) + " != " + std::to_string(t.int_attr("ignore_index", 0)) +
        ", " + w + ", " + zero + ")";
  const std::string weights = t.let(w);
  const std::string loss = t.let("-" + picked + " * " + weights);
  const std::string reduction = t.string_attr("reduction", "mean");
  if (reduction == "none") return t.emit(loss, out);
  if (reduction == "sum") return t.emit("sum(" + loss + ")", out);
  if (reduction == "mean") return t.emit("sum(" + loss + ") / sum(" + weights + ")", out);
  t.unsupported("E2005", "reduction `" + reduction + "`");
}

void nll_loss(Translator& t) {
  const Value& x = t.need(0);
  if (x.dtype() != "f32" && x.dtype() != "f16")
    t.unsupported("E2006", "scores of " + onnx_type_name(x.onnx_type));
  nll(t, t.operand(x), x.shape, x.dtype(), t.need(1), t.input(2), 0);
}

void softmax_cross_entropy(Translator& t) {
  const Value& x = t.need(0);
  if (x.dtype() != "f32" && x.dtype() != "f16")
    t.unsupported("E2006", "scores of " + onnx_type_name(x.onnx_type));
  if (x.rank() < 2) t.unsupported("E2008", "the scores need a class axis (N C ...)");
  const std::string log_prob = t.let("log_softmax(" + t.operand(x) + ", over=1)");
  nll(t, log_prob, x.shape, x.dtype(), t.need(1), t.input(2), 0);
  if (t.node().output_size() > 1 && !t.node().output(1).empty()) t.emit(log_prob, 1);
}

}  // namespace

void register_losses(std::map<std::string, Handler>& table) {
  table["NegativeLogLikelihoodLoss"] = nll_loss;
  table["SoftmaxCrossEntropyLoss"] = softmax_cross_entropy;
}

}  // namespace ss::onnx_import
