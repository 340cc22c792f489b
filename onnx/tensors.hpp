// ONNX tensors (TensorProto) as the importer folds and writes them: element
// type, shape and values, read from any of ONNX's storage fields, raw or
// typed, inline or external (a file in the model's folder only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/onnx_api.h"
#include "onnx/onnx_pb.h"

namespace ss::onnx_import {

// What an ONNX element type is inside shapescript: "f32", "f16", "bf16",
// "i32" (int32 and int64, narrowed at the edges), "bool"; "" where the
// language has no such type.
std::string ss_dtype(int onnx_type);
// ONNX's name of an element type ("FLOAT", "INT64", "DOUBLE").
std::string onnx_type_name(int onnx_type);

// A tensor's values, for folding and writing: integers and bools in `ints`,
// floats (exactly, as doubles) in `floats`.
struct Constant {
  int onnx_type = 0;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> ints;
  std::vector<double> floats;

  bool is_float() const;
  std::int64_t count() const;
  double at(std::size_t i) const { return is_float() ? floats[i] : static_cast<double>(ints[i]); }
  std::int64_t int_at(std::size_t i) const {
    return is_float() ? static_cast<std::int64_t>(floats[i]) : ints[i];
  }
};

// Reads a TensorProto, its external data from `folder`. ImportError
// (E2006) for a type it can't hold, E2009 for external data outside the
// folder or unreadable.
Constant read_constant(const onnx::TensorProto& t, const std::string& folder);

// An external initializer's bytes, its declared size, read through
// `reader` (the host's: onnx_api.h) from beside the model in `folder`.
// E2009 for a location outside the folder, no folder or reader (a model
// given as bytes), an offset or length that isn't a byte count, a length
// other than the tensor's bytes, or a file the reader refuses; the
// reader's own code (E1707) where the host's FileAccess forbids it.
std::string read_external(const onnx::TensorProto& t, const std::string& folder,
                          const SsOnnxReader* reader);

// The values as the bytes of shapescript's element type (int64 narrowed to
// int32: E2010 when one is out of range, naming `what`).
std::string element_bytes(const Constant& c, const std::string& what);

}  // namespace ss::onnx_import
