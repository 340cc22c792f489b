// The translator's view of shapes: ONNX's inference, run again with what
// the translation knows where ONNX's stopped or the translation bound
// another shape.
#include "onnx/translator.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "onnx/import_error.hpp"
#include "onnx/shape_inference/implementation.h"
#include "onnx/translator_text.hpp"

namespace ss::onnx_import {

using namespace text;

void Translator::forget_inference_after(const std::string& name,
                                        const std::vector<std::int64_t>& shape) {
  const auto it = infos_.find(name);
  if (it == infos_.end() || same_shape(it->second, shape)) return;
  for (auto k = infos_.begin(); k != infos_.end();)
    k = values_.count(k->first) ? std::next(k) : infos_.erase(k);
  refreshed_.clear();
}

bool Translator::shape_known(const std::string& name) const {
  auto it = infos_.find(name);
  if (it == infos_.end() || !it->second.type().has_tensor_type() ||
      !it->second.type().tensor_type().has_shape())
    return false;
  for (const auto& d : it->second.type().tensor_type().shape().dim())
    if (!d.has_dim_value()) return false;
  return true;
}

// ONNX's inference runs again with what the translation knows: every value's
// shape, and the nodes it folded as Constants (whose values inference reads
// without data propagation, which stays off: import_model.cpp). Where ONNX
// stopped at a shape computation the translation folded (a Mod of sizes,
// say), the shapes after it are found.
void Translator::refresh_inference() {
  onnx::ModelProto work = model_;
  auto* g = work.mutable_graph();
  g->clear_value_info();
  std::set<std::string> inputs;
  for (const auto& vi : g->input()) inputs.insert(vi.name());
  // A value the translation bound stands as a graph input of the shape it
  // gave it (ONNX may have inferred another: a prefix of a generic length
  // that it clamped); one it folded, as a Constant node.
  const auto as_input = [&](const std::string& name, const Value& v) {
    auto* vi = g->add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(v.onnx_type);
    auto* shape = tt->mutable_shape();
    for (auto d : v.shape) shape->add_dim()->set_dim_value(d);
    inputs.insert(name);
  };
  auto* nodes = g->mutable_node();
  int kept = 0;
  for (int k = 0; k < nodes->size(); ++k) {
    auto* n = nodes->Mutable(k);
    bool folded = k < node_index_ && n->output_size() == 1, bound = k < node_index_;
    for (const auto& o : n->output()) {
      auto it = values_.find(o);
      folded = folded && it != values_.end() && it->second.constant && it->second.expr.empty() &&
               !it->second.constant->is_float();
      bound =
          bound && (o.empty() || (it != values_.end() && !ss_dtype(it->second.onnx_type).empty()));
    }
    if (folded) {
      const Constant& c = *values_.at(n->output(0)).constant;
      onnx::NodeProto constant;
      constant.set_op_type("Constant");
      constant.set_name(n->name());
      constant.add_output(n->output(0));
      auto* a = constant.add_attribute();
      a->set_name("value");
      a->set_type(onnx::AttributeProto::TENSOR);
      auto* tensor = a->mutable_t();
      tensor->set_data_type(onnx::TensorProto::INT64);
      for (auto d : c.shape) tensor->add_dims(d);
      for (auto v : c.ints) tensor->add_int64_data(v);
      *n = std::move(constant);
    } else if (bound) {
      for (const auto& o : n->output())
        if (!o.empty() && !inputs.count(o)) as_input(o, values_.at(o));
      continue;  // the node itself goes
    }
    if (kept != k) nodes->SwapElements(kept, k);
    ++kept;
  }
  while (nodes->size() > kept) nodes->RemoveLast();
  for (const auto& [name, v] : values_) {
    if (inputs.count(name) || ss_dtype(v.onnx_type).empty()) continue;
    auto* vi = g->add_value_info();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(v.constant && !v.constant->is_float() && v.expr.empty()
                          ? onnx::TensorProto::INT64
                          : v.onnx_type);
    auto* shape = tt->mutable_shape();
    for (auto d : v.shape) shape->add_dim()->set_dim_value(d);
  }
  try {
    // No data propagation: the folded values stand in the graph as Constant
    // nodes, which inference reads anyway, and ONNX 1.12's propagation
    // writes through a null pointer where an earlier node's inference failed
    // (a Shape of its output: BERT's embeddings at a stand-in length).
    onnx::ShapeInferenceOptions options{false, 0, false};
    onnx::shape_inference::InferShapes(work, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception&) {
    return;  // what is still unknown stays E2007
  }
  for (const auto& vi : work.graph().value_info())
    if (!shape_known(vi.name())) infos_[vi.name()] = vi;
  for (const auto& vi : work.graph().output())
    if (!shape_known(vi.name())) infos_[vi.name()] = vi;
}

std::vector<std::int64_t> Translator::out_shape(int i) const {
  const std::string& name = node_->output(i);
  if (!shape_known(name) && !refreshed_.count(name)) {
    refreshed_.insert(name);
    const_cast<Translator*>(this)->refresh_inference();
  }
  auto it = infos_.find(name);
  if (it == infos_.end() || !it->second.type().has_tensor_type() ||
      !it->second.type().tensor_type().has_shape())
    unsupported("E2007", "the shape of `" + name + "` depends on the values the model computes",
                "shapescript sizes every tensor before it runs; a size computed from data has no "
                "place in it");
  std::vector<std::int64_t> shape;
  for (const auto& d : it->second.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value())
      unsupported("E2007",
                  "the size of an axis of `" + name + "` depends on " +
                      (d.has_dim_param() ? "`" + d.dim_param() + "`, a size the model leaves open"
                                         : std::string("the values the model computes")),
                  "shapescript sizes every tensor before it runs");
    // An empty tensor, or a size ONNX's inference made negative from
    // attributes it doesn't check (a stride of 0: fuzz_onnx's fifteenth find).
    if (d.dim_value() < 1)
      unsupported("E2008", "ONNX infers `" + name + "` an axis of size " +
                               std::to_string(d.dim_value()) +
                               "; shapescript's sizes are 1 or more");
    shape.push_back(d.dim_value());
  }
  return shape;
}

int Translator::out_type(int i) const {
  auto it = infos_.find(node_->output(i));
  if (it == infos_.end() || !it->second.type().has_tensor_type())
    unsupported("E2007", "the element type of `" + node_->output(i) + "` isn't known at import");
  return it->second.type().tensor_type().elem_type();
}

}  // namespace ss::onnx_import
