// libFuzzer target (the `sanitize` preset): the ONNX importer, as a host's load
// runs it up to planning: protobuf's parsing, ONNX's checker and shape
// inference, our translation, then our checker on the program it wrote
// (onnx_import_check.hpp says what it holds them to). Bytes as they come:
// fuzz_onnx_models mutates models as models.
#include "onnx_import_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ss::test::check_onnx_import("fuzz_onnx", data, size, nullptr);
  return 0;
}
