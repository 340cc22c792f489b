// What the ONNX tests share: whether the importer was built (a case
// reports itself skipped where it wasn't), and options that name it.
#pragma once

#include <string>

#include "shapescript/onnx.hpp"
#include "support/build_paths.hpp"
#include "support/skip.hpp"

namespace ss::test {

inline bool have_importer() {
  if (std::string(built::onnx).empty()) {
    skip("the ONNX importer wasn't built (libonnx-dev, libprotobuf-dev)");
    return false;
  }
  return true;
}

// OnnxOptions with the importer built beside the tests.
inline OnnxOptions importer_options() {
  OnnxOptions o;
  o.library = built::onnx;
  return o;
}

// A model of tests/onnx/models (tests/onnx/make_models.py and
// make_external_data.py).
inline std::string test_model(const std::string& name) {
  return std::string(built::source_dir) + "/tests/onnx/models/" + name;
}

}  // namespace ss::test
