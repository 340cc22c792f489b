// A model's bytes to its translation: parse, check the IR and opset
// versions, convert opsets 7-16 up to 17, run ONNX's checker and shape
// inference, then translate (translator.hpp).
#pragma once

#include <map>
#include <set>
#include <string>

#include "onnx/open_axes.hpp"
#include "onnx/translator.hpp"

namespace ss::onnx_import {

// The model, checked, at opset 17, its shapes inferred, its external data
// (from beside it in `folder`, through the host's `reader`) inlined, its inputs' symbolic dims
// sized (open_axes.hpp: the host's sizes, or stand-ins in a generic translation), which *symbolic
// records.
// ImportError on failure.
onnx::ModelProto read_model(const std::string& bytes, const std::string& folder,
                            const SsOnnxReader* reader, const SizesGiven& given,
                            Symbolic* symbolic);

}  // namespace ss::onnx_import
