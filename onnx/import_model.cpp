#include "onnx/import_model.hpp"

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/import_error.hpp"
#include "onnx/shape_inference/implementation.h"
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

}  // namespace

onnx::ModelProto read_model(const std::string& bytes) {
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
         "the model is opset " + std::to_string(opset) + "; this shapescript reads opsets 7 to 17",
         kReexport);
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    fail("E2002", "ONNX's checker refuses the model: " + first_line(e.what()));
  }
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
    onnx::ShapeInferenceOptions options{true, 1, true};  // check types, strict, propagate data
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    fail("E2008", "the model's shapes don't agree: " + first_line(e.what()),
         "ONNX's shape inference found it; ONNX Runtime would fail at Run");
  }
  return model;
}

}  // namespace ss::onnx_import
