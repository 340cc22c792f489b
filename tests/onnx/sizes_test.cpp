// Sizes used as values (issue 64): models whose open axes flow into
// positions, masks and shapes import and agree with ONNX Runtime at every
// size, from one load where the program can stay generic, with and
// without sizes given at load; odd input dims are open axes of their own.
// Models and goldens: tests/onnx/make_size_models.py and
// make_transformer_models.py (each goldens file holds the inputs too).
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "onnx/importer.hpp"
#include "shapescript/engine.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

using ss::test::have_importer;
using ss::test::importer_options;
using ss::test::test_model;

struct Golden {
  std::string file;  // beside the model: NAME_SIZES.safetensors
  std::map<std::string, ss::Tensor> tensors;
};

Golden golden(const std::string& folder, const std::string& name, const std::string& sizes) {
  Golden g{folder + "/" + name + "_" + sizes + ".safetensors", {}};
  REQUIRE(ss::read_tensor_file(test_model(g.file), &g.tensors, nullptr));
  return g;
}

// Outputs, by the graph's names, agree with ONNX Runtime's under the
// `onnx` row.
void check_outputs(const std::map<std::string, ss::Tensor>& got, const Golden& g) {
  for (const auto& entry : got) {
    const std::string& name = entry.first;
    CAPTURE(name);
    REQUIRE(g.tensors.count(name));
    ss::test::check_onnx_row(entry.second, g.tensors.at(name));
  }
}

// Calls forward with the golden's inputs; its outputs agree with ONNX
// Runtime's.
void check_call(const ss::OnnxModel& m, const Golden& g) {
  CAPTURE(g.file);
  std::vector<ss::Tensor> inputs;
  for (const auto& port : m.translation.inputs) {
    REQUIRE(g.tensors.count(port.onnx_name));
    inputs.push_back(g.tensors.at(port.onnx_name));
  }
  const ss::CallResult r = m.module.call("forward", m.arguments(inputs));
  REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? std::string() : r.diagnostics[0].render()));
  const std::vector<ss::Tensor> got = ss::OnnxModel::results(r);
  REQUIRE(got.size() == m.translation.outputs.size());
  std::map<std::string, ss::Tensor> named;
  for (std::size_t k = 0; k < got.size(); ++k) named[m.translation.outputs[k].onnx_name] = got[k];
  check_outputs(named, g);
}

ss::OnnxModel load(const ss::Engine& engine, const std::string& file, ss::OnnxOptions o) {
  ss::OnnxModel m = engine.load_onnx(test_model(file), o);
  REQUIRE_MESSAGE(m, (m.diagnostics.empty() ? std::string() : m.diagnostics[0].render()));
  return m;
}

const std::vector<std::string> kSequences = {"1x8", "4x32", "2x128"};

}  // namespace

TEST_CASE("positions sliced or ranged by the sequence's length serve every length from one load") {
  if (!have_importer()) return;
  const ss::Engine engine;
  // (a) the sum's Shape an output: ONNX 1.12's data propagation wrote
  // through a null pointer here; (b) positions sliced from a buffer; (c)
  // positions from Range(0, seq).
  for (const std::string name : {"a_positions_shape", "b_positions_sliced", "c_positions_range"}) {
    CAPTURE(name);
    const ss::OnnxModel m = load(engine, "sizes/" + name + ".onnx", importer_options());
    CHECK(m.translation.generic);
    CHECK(m.translation.source.find("arange(seq)") != std::string::npos);
    for (const auto& sizes : kSequences) check_call(m, golden("sizes", name, sizes));
    // Sizes given at load: the sized import first, then the generic one kept.
    for (const auto& sizes : kSequences) {
      const Golden g = golden("sizes", name, sizes);
      ss::OnnxOptions o = importer_options();
      o.input_shapes["ids"] = g.tensors.at("ids").shape();
      const ss::OnnxModel sized = load(engine, "sizes/" + name + ".onnx", o);
      check_call(sized, g);
    }
  }
  // A length past the buffer's 128 positions: a coded error at the call,
  // never a read past the table.
  const ss::OnnxModel m = load(engine, "sizes/b_positions_sliced.onnx", importer_options());
  std::vector<std::int32_t> ids(200, 1);
  const auto r = m.module.call("forward", m.arguments({ss::Tensor::of(ids, {1, 200})}));
  REQUIRE_FALSE(r);
  CHECK_MESSAGE(r.diagnostics.at(0).code == "E0509",
                r.diagnostics[0].render());  // an Index past 127
}

TEST_CASE("a pyramid's upsampled add imports for the sizes given, and says so without them") {
  if (!have_importer()) return;
  const ss::Engine engine;
  const std::string file = "sizes/d_pyramid_upsample.onnx";
  for (const std::string sizes : {"64x96", "32x32"}) {
    const Golden g = golden("sizes", "d_pyramid_upsample", sizes);
    const auto& shape = g.tensors.at("x").shape();
    ss::OnnxOptions by_dims = importer_options();
    by_dims.dims = {{"height", shape[2]}, {"width", shape[3]}};
    const ss::OnnxModel m = load(engine, file, by_dims);
    CHECK_FALSE(m.translation.generic);  // strided convolutions of a generic axis: E0723
    check_call(m, g);
    ss::OnnxOptions by_shapes = importer_options();
    by_shapes.input_shapes["x"] = shape;
    check_call(load(engine, file, by_shapes), g);
  }
  // Without sizes, the stand-in height (100003, odd) gives the pyramid's
  // levels sizes that don't add up: E2007 asking for the sizes, saying why.
  const ss::OnnxModel unsized = engine.load_onnx(test_model(file), importer_options());
  REQUIRE_FALSE(unsized);
  CHECK(unsized.diagnostics.at(0).code == "E2007");
  CHECK(unsized.diagnostics[0].message.find("`height`") != std::string::npos);
  CHECK(unsized.diagnostics[0].help.find("can't stay generic") != std::string::npos);
  CHECK(unsized.diagnostics[0].help.find("ONNX Runtime would") == std::string::npos);
  // Sizes that disagree: E2008, whose help doesn't claim what ONNX Runtime would do.
  ss::OnnxOptions odd = importer_options();
  odd.dims = {{"height", 65}, {"width", 96}};
  const ss::OnnxModel bad = engine.load_onnx(test_model(file), odd);
  REQUIRE_FALSE(bad);
  CHECK(bad.diagnostics.at(0).code == "E2008");
  CHECK(bad.diagnostics[0].help.find("ONNX Runtime") == std::string::npos);
  // A shape given at load that disagrees with the declared one, or with dims: E2008.
  ss::OnnxOptions wrong = importer_options();
  wrong.input_shapes["x"] = {1, 4, 64, 96};
  CHECK(engine.load_onnx(test_model(file), wrong).diagnostics.at(0).code == "E2008");
  wrong.input_shapes["x"] = {1, 3, 64, 96};
  wrong.dims = {{"height", 32}};
  CHECK(engine.load_onnx(test_model(file), wrong).diagnostics.at(0).code == "E2008");
}

TEST_CASE("a shifted-window mask built by ScatterND of known indices folds at import") {
  if (!have_importer()) return;
  const ss::Engine engine;
  const ss::OnnxModel m = load(engine, "sizes/e_shifted_window_mask.onnx", importer_options());
  CHECK(m.translation.generic);
  CHECK(m.translation.source.find("ScatterND") == std::string::npos);  // no statement made
  for (const std::string sizes : {"1", "3"})
    check_call(m, golden("sizes", "e_shifted_window_mask", sizes));
}

TEST_CASE("odd input dims: -1, `?`, no name and a repeated `?` are open axes of their own") {
  if (!have_importer()) return;
  const ss::Engine engine;
  const ss::OnnxModel m = load(engine, "sizes/f_odd_dims.onnx", importer_options());
  CHECK(m.translation.generic);
  REQUIRE(m.translation.inputs.size() == 2);
  CHECK(m.translation.inputs[0].axes ==
        std::vector<std::string>{"x_axis0", "", "x_axis2", "x_axis3"});
  CHECK(m.translation.inputs[1].axes == std::vector<std::string>{"y_axis0"});
  for (const std::string sizes : {"1x48x192x5", "2x32x40x9"})
    check_call(m, golden("sizes", "f_odd_dims", sizes));
  // Each is sized by its name, as a named one is.
  ss::OnnxOptions o = importer_options();
  o.dims = {{"x_axis0", 1}, {"x_axis2", 48}, {"x_axis3", 192}, {"y_axis0", 5}};
  check_call(load(engine, "sizes/f_odd_dims.onnx", o), golden("sizes", "f_odd_dims", "1x48x192x5"));
}

TEST_CASE("BERT, DistilBERT and GPT-2 serve three lengths at batch 1 and 4 from one load") {
  if (!have_importer()) return;
  const ss::Engine engine;
  for (const std::string name : {"bert", "distilbert", "gpt2"}) {
    CAPTURE(name);
    const ss::OnnxModel m = load(engine, "transformers/" + name + ".onnx", importer_options());
    CHECK(m.translation.generic);
    for (const std::string batch : {"1", "4"})
      for (const std::string seq : {"8", "32", "128"})
        check_call(m, golden("transformers", name, batch + "x" + seq));
  }
}

TEST_CASE("shapescript run sizes an import by --inputs' shapes, or by --dim") {
  if (!have_importer()) return;
  ss::test::TempDir dir;
  const auto run = [&](const std::string& model, const Golden& g,
                       const std::vector<std::string>& extra) {
    std::vector<std::string> args = {ss::test::kCliPath,
                                     "run",
                                     test_model(model),
                                     "--inputs",
                                     test_model(g.file),
                                     "--outputs",
                                     dir.path() + "/out.safetensors"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto ran = ss::test::run_process(args, {.merge_stderr = true});
    REQUIRE_MESSAGE(ran.exit_code == 0, ran.out);
    std::map<std::string, ss::Tensor> out;
    REQUIRE(ss::read_tensor_file(dir.path() + "/out.safetensors", &out, nullptr));
    check_outputs(out, g);
  };
  // (d) runs only sized: without --dim the inputs' shapes size it.
  for (const std::string sizes : {"64x96", "32x32"}) {
    const Golden g = golden("sizes", "d_pyramid_upsample", sizes);
    run("sizes/d_pyramid_upsample.onnx", g, {});
    const auto& shape = g.tensors.at("x").shape();
    run("sizes/d_pyramid_upsample.onnx", g,
        {"--dim", "height=" + std::to_string(shape[2]), "--dim",
         "width=" + std::to_string(shape[3])});
  }
  // (a), (b) and (e) with and without --dim.
  run("sizes/a_positions_shape.onnx", golden("sizes", "a_positions_shape", "4x32"), {});
  run("sizes/a_positions_shape.onnx", golden("sizes", "a_positions_shape", "4x32"),
      {"--dim", "batch=4", "--dim", "seq=32"});
  run("sizes/b_positions_sliced.onnx", golden("sizes", "b_positions_sliced", "2x128"),
      {"--dim", "seq=128"});
  run("sizes/e_shifted_window_mask.onnx", golden("sizes", "e_shifted_window_mask", "3"),
      {"--dim", "batch=3"});
}
