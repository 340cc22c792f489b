// The models issue 43 imports (tests/onnx/model_ops.txt's list), each held
// to ONNX Runtime's outputs (the goldens tests/onnx/make_model_goldens.py
// wrote) within docs/numerics.md's `onnx` row. The torch.nn modules are
// committed; torchvision's image models are too large to be, so they run
// where that script left them ($SS_ONNX_MODELS, else
// ~/.cache/shapescript/onnx-models) and are reported skipped elsewhere.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "onnx/importer.hpp"
#include "shapescript/engine.hpp"
#include "support/build_paths.hpp"
#include "support/numerics.hpp"
#include "support/skip.hpp"

namespace {

namespace fs = std::filesystem;

std::string large_models() {
  if (const char* dir = std::getenv("SS_ONNX_MODELS"); dir && *dir) return dir;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "") + "/.cache/shapescript/onnx-models";
}

// The script's input pattern: element i of a float input is
// ((i * 7919) mod 1000) / 500 - 1, of an integer one i mod 100.
ss::Tensor pattern(const ss::OnnxPort& port, std::int64_t batch) {
  std::vector<std::int64_t> shape = port.shape;
  for (auto& d : shape)
    if (d < 0) d = batch;  // the generic batch axis
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  if (port.dtype == ss::DType::i32) {
    std::vector<std::int32_t> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      v[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i % 100);
    return ss::Tensor::of(v, shape);
  }
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] =
        static_cast<float>(static_cast<double>((i * 7919) % 1000) / 500.0 - 1.0);
  return ss::Tensor::of(v, shape);
}

// Runs the manifest's committed models (`committed_ones`) or the others;
// returns how many ran, and names those not found.
int run_models(bool committed_ones, std::string* missing) {
  const std::string here = std::string(ss::test::built::source_dir) + "/tests/onnx/";
  std::ifstream manifest(here + "goldens/manifest.txt");
  REQUIRE(manifest);
  ss::Engine engine;
  int ran = 0;
  for (std::string line; std::getline(manifest, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, file, batch;
    std::getline(fields, name, '\t');
    std::getline(fields, file, '\t');
    std::getline(fields, batch, '\t');
    CAPTURE(name);
    const bool committed = file.rfind("torch/", 0) == 0;
    if (committed != committed_ones) continue;
    const std::string path = committed ? here + "models/" + file : large_models() + "/" + file;
    if (!fs::exists(path)) {
      REQUIRE_FALSE(committed);
      *missing += " " + name;
      continue;
    }
    ss::OnnxOptions options;
    options.library = ss::test::built::onnx;
    options.dims["batch"] = std::stoll(batch);
    const ss::OnnxModel m = engine.load_onnx(path, options);
    REQUIRE_MESSAGE(m, (m.diagnostics.empty() ? std::string() : m.diagnostics[0].render()));
    std::vector<ss::Tensor> inputs;
    CHECK(m.translation.generic);  // the batch axis stays generic
    for (const auto& port : m.translation.inputs)
      inputs.push_back(pattern(port, std::stoll(batch)));
    const ss::CallResult r = m.module.call("forward", m.arguments(inputs));
    REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? std::string() : r.diagnostics[0].message));
    const std::vector<ss::Tensor> got = ss::OnnxModel::results(r);
    std::map<std::string, ss::Tensor> goldens;
    const std::string golden_file =
        fs::path(file).filename().replace_extension(".safetensors").string();
    REQUIRE(ss::read_tensor_file(here + "goldens/" + golden_file, &goldens, nullptr));
    REQUIRE(got.size() == m.translation.outputs.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      const auto& port = m.translation.outputs[k];
      CAPTURE(port.onnx_name);
      REQUIRE(goldens.count(port.onnx_name));
      ss::test::check_onnx_row(got[k], goldens.at(port.onnx_name));
    }
    ++ran;
  }
  return ran;
}

}  // namespace

TEST_CASE("PyTorch's modules imported from ONNX agree with ONNX Runtime" * doctest::timeout(300)) {
  if (std::string(ss::test::built::onnx).empty())
    return ss::test::skip("the ONNX importer wasn't built");
  std::string missing;
  CHECK(run_models(true, &missing) ==
        11);  // transformer, attention, GRU, LSTM, RNN, norms, embedding...
  CHECK(missing.empty());
}

TEST_CASE("torchvision's image models imported from ONNX agree with ONNX Runtime" *
          doctest::timeout(600)) {
  if (std::string(ss::test::built::onnx).empty())
    return ss::test::skip("the ONNX importer wasn't built");
  std::string missing;
  const int ran = run_models(false, &missing);
  if (ran == 0)
    return ss::test::skip("torchvision's models aren't in " + large_models() +
                          " (tests/onnx/make_model_goldens.py writes them)");
  CHECK_MESSAGE(missing.empty(), "not found:" << missing);
}
