// What the ONNX tests share: whether the importer was built (a case
// reports itself skipped where it wasn't), and options that name it.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "shapescript/onnx.hpp"
#include "support/build_paths.hpp"
#include "support/numerics.hpp"
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

// Checks (with doctest) that an output has ONNX Runtime's shape and agrees
// with its values under docs/numerics.md's `onnx` row, naming the first
// three elements that don't.
inline void check_onnx_row(const Tensor& have, const Tensor& want) {
  REQUIRE(have.shape() == want.shape());
  const auto w = want.to_floats(), h = have.to_floats();
  const std::vector<double> wide(w.begin(), w.end());
  const double scale = tensor_scale(wide);
  const auto& row = tolerance("onnx");
  int wrong = 0;
  for (std::size_t i = 0; i < w.size(); ++i)
    if (!agrees(h[i], w[i], scale, row) && ++wrong <= 3)
      FAIL_CHECK("element " << i << ": " << h[i] << ", ONNX Runtime " << w[i]);
  CHECK(wrong == 0);
}

}  // namespace ss::test
