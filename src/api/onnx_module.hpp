// The ONNX importer module (libshapescript_onnx, onnx/onnx_api.h), opened
// at run time: a translation of a model's bytes and the reading of a
// TensorProto, with the module's JSON answers turned into the public types.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shapescript/onnx.hpp"

namespace ss::api {

// Finds the module: `requested`, else SHAPESCRIPT_ONNX, else beside the
// library. False with *why when it can't be opened.
bool probe_onnx_module(const std::string& requested, std::string* path, std::string* version,
                       std::string* why);

// `generic`: try the symbolic dims as generic axes first. External data
// is read from beside the model in `folder`, or in `resolved_folder` (the
// folder of the model file's resolved path; empty: `folder`), through
// options.load.files (api/onnx_external_data.hpp).
OnnxTranslation translate_onnx(std::string_view bytes, const std::string& folder,
                               const OnnxOptions& options, bool generic = true,
                               const std::string& resolved_folder = {});

std::vector<std::string> supported_ops(std::vector<Diagnostic>* errors, const std::string& library);

bool read_onnx_tensor(std::string_view bytes, Tensor* out, std::string* name,
                      std::vector<Diagnostic>* errors, const std::string& library);

}  // namespace ss::api
