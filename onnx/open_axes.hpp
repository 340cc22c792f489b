// The graph inputs' open axes, given sizes before anything infers shapes:
// the host's (OnnxOptions::dims by name, OnnxOptions::input_shapes by
// input), or in a generic translation stand-ins (translator.hpp's
// Symbolic). An axis is open with a name (dim_param), or without one (no
// param, "?", a dim_value below 0): each of those is its own open axis,
// named `INPUT_axisK`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "onnx/translator.hpp"

namespace ss::onnx_import {

struct SizesGiven {
  std::map<std::string, std::int64_t> dims;                 // by the axis's name
  std::map<std::string, std::vector<std::int64_t>> shapes;  // by the input's name
  bool any() const { return !dims.empty() || !shapes.empty(); }
};

bool is_open(const onnx::TensorShapeProto::Dimension& d);

// Sizes every open axis of the graph's inputs (ImportError: E2007 for one
// left unsized or a name no input has, E2008 for sizes that disagree), and
// records the axes' names and sizes in *symbolic.
void size_open_axes(onnx::ModelProto& model, const SizesGiven& given, Symbolic* symbolic);

}  // namespace ss::onnx_import
