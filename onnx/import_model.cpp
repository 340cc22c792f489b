#include "onnx/import_model.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/import_error.hpp"
#include "onnx/open_axes.hpp"
#include "onnx/shape_inference/implementation.h"
#include "onnx/tensors.hpp"
#include "onnx/translator.hpp"
#include "onnx/version_converter/convert.h"

namespace ss::onnx_import {
namespace {

constexpr int kOpset = 17;
constexpr int kIrVersion = 8;
const char* const kReexport =
    "re-export it at opset 17: torch.onnx.export(model, args, path, dynamo=False, "
    "opset_version=17)";

std::string first_line(const std::string& s) {
  const auto n = s.find('\n');
  return n == std::string::npos ? s : s.substr(0, n);
}

// Not what ONNX Runtime would do: a model's shapes may disagree only at
// some sizes (a stride-2 pyramid at an odd height).
const char* const kShapesHelp =
    "ONNX's shape inference found it at the sizes the import gave the inputs' open axes "
    "(OnnxOptions::dims, --dim, the inputs' shapes): give the sizes the model runs at";

// The name of a graph's output (or a subgraph's) that nothing defines: no
// node makes it, and it is no input or initializer of the graph or of one
// around it; empty when every output is defined. ONNX's checker lets such
// a graph through, and its version converter then writes through a null
// pointer (onnx::graphProtoToGraph, ONNX 1.12): checked before the call.
std::string undefined_output(const onnx::GraphProto& g, std::set<std::string> defined) {
  for (const auto& v : g.input()) defined.insert(v.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& t : g.sparse_initializer()) defined.insert(t.values().name());
  for (const auto& n : g.node()) {
    for (const auto& a : n.attribute()) {
      if (a.has_g())
        if (auto bad = undefined_output(a.g(), defined); !bad.empty()) return bad;
      for (const auto& sub : a.graphs())
        if (auto bad = undefined_output(sub, defined); !bad.empty()) return bad;
    }
    for (const auto& o : n.output()) defined.insert(o);
  }
  for (const auto& o : g.output())
    if (!defined.count(o.name())) return o.name().empty() ? "(an output without a name)" : o.name();
  return {};
}

// Refuses a node whose op shapescript doesn't import (E2004) before ONNX
// infers any shape: inference functions of ops the translation would
// refuse anyway can't crash the import then (STFT's wrote through a null
// pointer: fuzz_onnx's twelfth find), nor can a subgraph's (control flow:
// If, Loop, Scan). Upsample and Scatter are taken: the version converter
// turns them into Resize and ScatterElements.
void refuse_unimported_ops(const onnx::GraphProto& g) {
  for (const auto& n : g.node()) {
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      throw ImportError{"E2004",
                        "op `" + n.op_type() + "` of domain `" + n.domain() + "` isn't supported",
                        n.name(), n.op_type(),
                        "shapescript imports the default ONNX domain's ops (docs/onnx.md lists "
                        "them)"};
    bool subgraph = false;
    for (const auto& a : n.attribute()) subgraph = subgraph || a.has_g() || a.graphs_size() > 0;
    if (!subgraph &&
        (handler_for(n.op_type()) || n.op_type() == "Upsample" || n.op_type() == "Scatter"))
      continue;
    throw ImportError{"E2004",
                      "op `" + n.op_type() + "` isn't supported" +
                          (subgraph ? ": shapescript doesn't import control flow" : ""),
                      n.name(), n.op_type(), "docs/onnx.md lists the ops shapescript imports"};
  }
}

// Inference functions of ONNX 1.12 that index an input's axes without
// checking its rank, writing through a null pointer when it has too few:
// found by fuzz_onnx (its seventh and ninth finds). `below` is the first
// opset whose version of the op checks.
struct UncheckedRank {
  const char* op;
  int below;  // the op's inference checks from this opset on
  int input;
  int rank;                    // the least rank it reads safely; the op needs it anyway
  const char* axis = nullptr;  // an axis attribute (default -1) it indexes the input's axes by
};
constexpr UncheckedRank kUncheckedRanks[] = {
    {"ConvTranspose", 1 << 30, 0, 3},  // X: N C and spatial axes
    {"ConvTranspose", 1 << 30, 1, 3},  // W: its second axis is read
    {"Gemm", 7, 0, 2},                 // A and B: Gemm-1 and Gemm-6 read two axes
    {"Gemm", 7, 1, 2},
    // RNN-1, GRU-1 and -3 and LSTM-1 (onnx::RNNShapeInference1) read X's
    // three axes unchecked (the 25th find).
    {"RNN", 7, 0, 3},
    {"GRU", 7, 0, 3},
    {"LSTM", 7, 0, 3},
    // Its mean's and deviation's shapes copy X's and index `axis` (the
    // fifteenth find).
    {"LayerNormalization", 1 << 30, 0, 1, "axis"},
};

// What ONNX 1.12's shape inference would crash on, by kUncheckedRanks.
// Ranks are read from the graph's inputs, initializers and declared
// value_info; one an earlier node makes is inferred over the nodes before
// it, which were checked already. Empty when nothing would crash.
std::string crashes_inference(const onnx::ModelProto& model, int opset) {
  const onnx::GraphProto& g = model.graph();
  std::map<std::string, int> ranks;
  const auto note = [&ranks](const onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
      ranks[v.name()] = v.type().tensor_type().shape().dim_size();
  };
  for (const auto& v : g.input()) note(v);
  for (const auto& v : g.value_info()) note(v);
  for (const auto& t : g.initializer()) ranks[t.name()] = t.dims_size();
  int inferred_before = 0;  // the nodes the ranks cover
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    // The conv and pool ops' inference (onnx::convPoolShapeInference)
    // divides by each stride unchecked: a stride of 0 ended the process
    // (SIGFPE, fuzz_onnx's 22nd find). Every op with strides needs them
    // positive anyway.
    for (const auto& a : n.attribute())
      if (a.name() == "strides")
        for (const std::int64_t s : a.ints())
          if (s < 1)
            return "a " + n.op_type() + "'s stride " + std::to_string(s) +
                   ": strides need sizes of 1 or more";
    for (const UncheckedRank& u : kUncheckedRanks) {
      if (n.op_type() != u.op || opset >= u.below || u.input >= n.input_size()) continue;
      const std::string& name = n.input(u.input);
      if (!ranks.count(name) && inferred_before < i) {
        onnx::ModelProto prefix = model;
        auto* nodes = prefix.mutable_graph()->mutable_node();
        nodes->erase(nodes->begin() + i, nodes->end());
        prefix.mutable_graph()->clear_output();
        try {
          onnx::shape_inference::InferShapes(prefix);
        } catch (const std::exception&) {
        }
        for (const auto& v : prefix.graph().value_info()) note(v);
        inferred_before = i;
      }
      const auto r = ranks.find(name);
      if (r == ranks.end()) continue;
      if (r->second < u.rank)
        return "a " + std::string(u.op) + "'s input " + std::to_string(u.input) + ", `" + name +
               "`, has " + std::to_string(r->second) + " axes, not " + std::to_string(u.rank) +
               " or more";
      if (u.axis) {
        std::int64_t axis = -1;
        for (const auto& a : n.attribute())
          if (a.name() == u.axis) axis = a.i();
        if (axis < -r->second || axis >= r->second)
          return "a " + std::string(u.op) + "'s " + u.axis + " " + std::to_string(axis) +
                 " isn't an axis of `" + name + "`, which has " + std::to_string(r->second);
      }
    }
  }
  return {};
}

}  // namespace

onnx::ModelProto read_model(const std::string& bytes, const std::string& folder,
                            const SsOnnxReader* reader, const SizesGiven& given,
                            Symbolic* symbolic) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    fail("E2002", "the bytes aren't an ONNX model (protobuf's parse failed)");
  if (model.ir_version() > kIrVersion)
    fail("E2003",
         "the model is ONNX IR version " + std::to_string(model.ir_version()) +
             "; this shapescript reads IR version 8 or lower (ONNX 1.12)",
         kReexport);
  int opset = -1;
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx")
      opset = static_cast<int>(o.version());
    else if (o.domain() != "ai.onnx.ml" || true) {
      bool used = false;
      for (const auto& n : model.graph().node()) used = used || n.domain() == o.domain();
      if (used)
        fail("E2004",
             "the model uses ops of domain `" + o.domain() + "`, which shapescript doesn't import",
             "shapescript imports the default ONNX domain's ops");
    }
  }
  if (opset < 0) fail("E2002", "the model imports no opset of the default domain");
  if (opset > kOpset)
    fail("E2003",
         "the model is opset " + std::to_string(opset) +
             "; this shapescript reads opsets up to 17 (ONNX 1.12)",
         kReexport);
  // External data, read from the model's folder only, is inlined first: the
  // checker would look for it relative to the working directory.
  for (auto& t : *model.mutable_graph()->mutable_initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL) continue;
    std::string raw = read_external(t, folder, reader);
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
    t.set_raw_data(std::move(raw));
  }
  // The inputs' open axes take the host's sizes (or stand-ins) before
  // anything infers shapes.
  size_open_axes(model, given, symbolic);
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    fail("E2002", "ONNX's checker refuses the model: " + first_line(e.what()));
  }
  if (model.graph().output_size() == 0)
    fail("E2002", "the graph has no outputs: an imported model computes them");
  if (const std::string bad = undefined_output(model.graph(), {}); !bad.empty())
    fail("E2002", "the graph's output `" + bad + "` isn't made by any node, input or initializer");
  refuse_unimported_ops(model.graph());
  if (const std::string bad = crashes_inference(model, opset); !bad.empty())
    fail("E2008", "the model's shapes don't agree: " + bad, kShapesHelp);
  if (opset < kOpset) {
    try {
      // The converter's adapters read shapes: infer them at the old opset first.
      onnx::shape_inference::InferShapes(model);
    } catch (const std::exception&) {
    }
    try {
      model = onnx::version_conversion::ConvertVersion(model, kOpset);
    } catch (const std::exception& e) {
      fail("E2003",
           "ONNX's version converter can't bring the model from opset " + std::to_string(opset) +
               " to 17: " + first_line(e.what()),
           kReexport);
    }
  }
  try {
    // Types checked, strict, no data propagation: ONNX 1.12's writes through
    // a null pointer where an earlier node's inference failed (translator.cpp's
    // refresh_inference folds the shape subgraphs instead).
    onnx::ShapeInferenceOptions options{true, 1, false};
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    // "[ShapeInferenceError] ... (op_type:Add, node name: add): [ShapeInferenceError] why"
    static const std::regex where(R"(\(op_type:([A-Za-z0-9_]+)(, node name: ([^)]*))?\): (.*)$)");
    std::smatch m;
    const std::string text = first_line(e.what());
    ImportError error{"E2008", "the model's shapes don't agree: " + text, {}, {}, kShapesHelp};
    if (std::regex_search(text, m, where)) {
      std::string why = m[4];
      for (std::string tag : {"[ShapeInferenceError] ", "[TypeInferenceError] "})
        for (auto at = why.find(tag); at != std::string::npos; at = why.find(tag))
          why.erase(at, tag.size());
      error.op = m[1];
      error.node = m[3];
      error.message = "its shapes don't agree: " + why;
    }
    throw error;
  }
  return model;
}

}  // namespace ss::onnx_import
