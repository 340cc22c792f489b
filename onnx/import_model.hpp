// A model's bytes to its translation: parse, check the IR and opset
// versions, convert opsets 7-16 up to 17, run ONNX's checker and shape
// inference, then translate (translator.hpp).
#pragma once

#include <set>
#include <string>

#include "onnx/translator.hpp"

namespace ss::onnx_import {

// The model, checked, at opset 17, its shapes inferred, its external data
// (from `folder`) inlined. ImportError on failure.
onnx::ModelProto read_model(const std::string& bytes, const std::string& folder);

}  // namespace ss::onnx_import
