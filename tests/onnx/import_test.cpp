// ONNX import through the embedding API and the CLI: the models of
// tests/onnx/models (tests/onnx/make_models.py) and the backend
// suite's, loaded, called, trained and refused.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "onnx/backend_suite.hpp"
#include "onnx/importer.hpp"
#include "shapescript/engine.hpp"
#include "shapescript/shapescript.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/skip.hpp"

namespace {

std::string source_path(const std::string& relative) {
  return std::string(ss::test::built::source_dir) + "/" + relative;
}

using ss::test::have_importer;

ss::OnnxOptions options() {
  return ss::test::importer_options();
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("an imported model is a program: forward runs, and its source names the node") {
  if (!have_importer()) return;
  ss::Engine engine;
  const ss::OnnxModel model =
      engine.load_onnx(source_path("tests/onnx/models/relu.onnx"), options());
  REQUIRE_MESSAGE(model, (model.diagnostics.empty() ? "" : model.diagnostics[0].message));
  CHECK(model.translation.source.find("fn forward(x: [2 3]) -> [2 3]:") != std::string::npos);
  CHECK(model.translation.source.find("# relu: Relu") != std::string::npos);
  CHECK_FALSE(model.weights);  // no initializer, no model
  const auto x = ss::Tensor::of(std::vector<float>{-1, 2, -3, 4, -5, 6}, {2, 3});
  const auto r = model.module.call("forward", model.arguments(std::vector<ss::Tensor>{x}));
  REQUIRE(r);
  CHECK(r.tensor().to_floats() == std::vector<float>{0, 2, 0, 4, 0, 6});
}

TEST_CASE("a model's bytes import as its file does, and refusals are coded") {
  if (!have_importer()) return;
  ss::Engine engine;
  const auto bytes = read_all(source_path("tests/onnx/models/relu.onnx"));
  CHECK(engine.load_onnx_bytes(bytes, options()));
  const std::map<std::string, std::string> refused = {
      {"opset18.onnx", "E2003"},       {"determinant.onnx", "E2004"},
      {"argmax_last.onnx", "E2005"},   {"float64.onnx", "E2006"},
      {"reshape_input.onnx", "E2007"}, {"add_mismatch.onnx", "E2008"},
      {"outside_data.onnx", "E2009"},  {"int64_big.onnx", "E2010"}};
  for (const auto& entry : refused) {
    const std::string& file = entry.first;
    const std::string& code = entry.second;
    CAPTURE(file);
    const auto m = engine.load_onnx(source_path("tests/onnx/models/" + file), options());
    CHECK_FALSE(m);
    REQUIRE_FALSE(m.diagnostics.empty());
    CHECK(m.diagnostics[0].code == code);
  }
  CHECK(engine.load_onnx_bytes("not a model", options()).diagnostics.at(0).code == "E2002");
  // A graph named with a newline and control characters: the name went
  // into the program's first comment, and its second line wasn't
  // shapescript (fuzz_onnx's fourth find). Shown with '?' now, the model
  // loads.
  const auto named =
      engine.load_onnx(source_path("tests/fuzz/onnx_corpus/newline_in_graph_name.onnx"), options());
  CHECK_MESSAGE(named, (named.diagnostics.empty() ? "" : named.diagnostics[0].render()));
  ss::OnnxOptions nowhere;
  nowhere.library = "/nowhere/libshapescript_onnx.so";
  CHECK(engine.load_onnx_bytes(bytes, nowhere).diagnostics.at(0).code == "E2001");
}

// fuzz_onnx's finds (tests/fuzz/README.md numbers them): each model once
// crashed the import, read memory it didn't own, or was translated into a
// program that doesn't check. Each is refused now, with its code, most
// before ONNX's inference runs.
TEST_CASE("the models fuzz_onnx found are refused with their codes") {
  if (!have_importer()) return;
  ss::Engine engine;
  struct Find {
    const char* path;  // under tests/fuzz/onnx_corpus unless it names a folder
    const char* code;
    const char* says;
  };
  const Find finds[] = {
      // 1: a name that isn't UTF-8 in ONNX's checker's message: the JSON
      // threw out of the C table and ended the host. Now U+FFFD.
      {"invalid_utf8_name.onnx", "E2002", "\xEF\xBF\xBD"},
      // 2: a graph output nothing makes: ONNX's version converter wrote
      // through a null pointer.
      {"output_nothing_makes.onnx", "E2002", "`output` isn't made"},
      // 3: a graph without outputs.
      {"no_outputs.onnx", "E2002", "no outputs"},
      // 5, 6: an RNN's bias of one axis, a GRU's layout 3.
      {"rnn_bias_rank_one.onnx", "E2008", "B needs the shape [1 10]"},
      {"gru_layout_three.onnx", "E2008", "layout 3 isn't 0 or 1"},
      // 7: a ConvTranspose's weight of no axes, declared or made by a node:
      // ONNX's inference wrote through a null pointer.
      {"convtranspose_weight_no_axes.onnx", "E2008", "has 0 axes, not 3 or more"},
      {"tests/onnx/models/convtranspose_scalar_weight.onnx", "E2008", "has 0 axes, not 3 or more"},
      // 8, 10: scales and weights that don't fit.
      {"layernorm_scale_wrong_shape.onnx", "E2008",
       "Scale doesn't broadcast onto the normalized axes"},
      {"tests/onnx/models/instancenorm_scale_length.onnx", "E2008", "input 1 needs the shape [2]"},
      {"nll_weight_length.onnx", "E2008", "the weight needs the shape [5]"},
      // 9: Gemm-6's inference read A's two axes unchecked.
      {"gemm6_scalar_a.onnx", "E2008", "a Gemm's input 0, `0`, has 0 axes, not 2"},
      // 11: a ConvTranspose read past the end of its inferred output shape.
      {"convtranspose_output_shape_two_axes.onnx", "E2008",
       "its output's shape, as ONNX infers it, has 2 axes, not 4"},
      // 12: STFT's inference wrote through a null pointer; ops not imported
      // are refused before ONNX infers anything, control flow among them.
      {"stft_signal_without_shape.onnx", "E2004", "op `STFT` isn't supported"},
      {"tests/onnx/models/if_branches.onnx", "E2004", "control flow"},
      // 13, 14: a Gemm's K, a conv's channels.
      {"gemm_k_mismatch.onnx", "E2008", "Gemm contracts A's 10 with B's 7"},
      {"convtranspose_channels.onnx", "E2008",
       "its kernel takes 1 input channels; the input has 46"},
      {"tests/onnx/models/conv_channels.onnx", "E2008",
       "its kernel takes 2 input channels; the input has 3"},
      // 15: a stride of 0 (refused before ONNX infers shapes since the
      // 22nd find); a LayerNormalization of a scalar, whose
      // inference wrote through a null pointer.
      {"convtranspose_stride_zero.onnx", "E2008",
       "a ConvTranspose's stride 0: strides need sizes of 1 or more"},
      {"layernorm_scalar_x.onnx", "E2008",
       "a LayerNormalization's input 0, `X`, has 0 axes, not 1 or more"},
      // 16: Einsum, whose inference gives ranks only.
      {"einsum_non_letter.onnx", "E2008", "names an index no input has, or one twice"},
      {"einsum_index_sizes.onnx", "E2008",
       "the equation's index `j` is 4 in one input and 2 in another"},
      {"einsum_declared_shape.onnx", "E2008",
       "the equation makes a result of another shape than the graph declares"},
      // 17: a ceil-mode MaxPool whose last window ONNX counts and we don't.
      {"maxpool_ceil_stride_nine.onnx", "E2008",
       "its windows make [1 2] along its spatial axes; ONNX infers an output of [1 1 2 2]"},
      // 18: a LessOrEqual whose inputs don't broadcast.
      {"lessorequal_no_broadcast.onnx", "E2008",
       "its inputs' shapes don't broadcast to its output's"},
      // 19: a ConvTranspose of a batch of 61 declared as 1.
      {"convtranspose_batch_declared.onnx", "E2008",
       "it makes an output of [61 2 10 8]; ONNX infers [1 2 10 8]"},
      // 20: keepdims 4, read as 0 by ONNX and as 1 by the translation.
      {"reducemin_keepdims_four.onnx", "E2008", "keepdims 4 isn't 0 or 1"},
      // 21: shape arithmetic folded past int64 (UBSan).
      {"mul_fold_overflow.onnx", "E2010",
       "folding `*` of the constants 12884901888 and 25769803776 overflows int64"},
      // 22: a Conv's stride of 0: ONNX's inference divided by it (SIGFPE).
      {"conv_stride_zero.onnx", "E2008", "a Conv's stride 0: strides need sizes of 1 or more"},
      // 23: a Transpose's perm of 5 axes for an input of 6 read past the
      // axes' names.
      {"transpose_perm_short.onnx", "E2008", "its perm has 5 axes; the input has 6"},
      {"tests/onnx/models/transpose_perm_repeats.onnx", "E2008",
       "perm for Transpose has repeated value: 1"},
      // 24: a Resize of an empty axis to 75: a scale of infinity and source
      // coordinates of NaN, cast to positions (UBSan).
      {"resize_empty_axis.onnx", "E2008",
       "it resizes axis 0 from 0 to 75: an empty axis stays empty"},
      // 25: an opset-1 LSTM whose X has no axes: ONNX's RNNShapeInference1
      // read its three axes through a null pointer.
      {"lstm1_scalar_x.onnx", "E2008", "input 0, `x`, has 0 axes, not 3 or more"},
      // fuzz_onnx_models's finds (tests/fuzz/onnx_model_corpus, README): 2,
      // 3: a Slice's starts longer than its ends, read past them.
      {"tests/fuzz/onnx_model_corpus/find2_slice_counts.onnx", "E2008",
       "Slice's starts, ends, axes and steps don't have one count"},
  };
  for (const Find& f : finds) {
    const std::string path = std::string(f.path).find('/') == std::string::npos
                                 ? "tests/fuzz/onnx_corpus/" + std::string(f.path)
                                 : std::string(f.path);
    CAPTURE(path);
    const auto m = engine.load_onnx(source_path(path), options());
    REQUIRE_FALSE(m.diagnostics.empty());
    CHECK(m.diagnostics[0].code == f.code);
    CHECK(m.diagnostics[0].message.find(f.says) != std::string::npos);
  }
}

TEST_CASE("an input known at load folds into the program as a constant") {
  if (!have_importer()) return;
  ss::Engine engine;
  ss::OnnxOptions o = options();
  // A strided view (every other element of {3, 99, 2}) is read through its strides.
  const std::int32_t every_other[] = {3, 99, 2};
  o.constants["shape"] = ss::Tensor::view(every_other, {2}, {2});
  const auto m = engine.load_onnx(source_path("tests/onnx/models/reshape_input.onnx"), o);
  REQUIRE(m);
  REQUIRE(m.translation.inputs.size() == 1);
  const auto r = m.module.call(
      "forward", m.arguments({ss::Tensor::of(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3})}));
  REQUIRE(r);
  CHECK(r.tensor().shape() == std::vector<std::int64_t>{3, 2});
  CHECK(r.tensor().to_floats() == std::vector<float>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("an imported network trains in the host, its frozen initializers left as they were") {
  if (!have_importer()) return;
  if (ss::test::backend_data_root().empty())
    return ss::test::skip("ONNX's test data isn't installed");
  // PyTorch's Linear from ONNX's suite: y = x W^T + b, a Gemm of the
  // initializers `1` (W) and `2` (b).
  const std::string path =
      ss::test::backend_data_root() + "/pytorch-converted/test_Linear/model.onnx";
  ss::Engine engine;
  ss::OnnxOptions o = options();
  o.extra_source =
      "fn loss(m: Onnx, x: [4 10], y: [4 8]) -> []:\n"
      "    d = forward(m, x) - y\n"
      "    return mean(d * d)\n"
      "fn step(mut m: Onnx, mut opt: SGD[Onnx], x: [4 10], y: [4 8]) -> []:\n"
      "    l, g = value_and_grad(loss, m, x, y)\n"
      "    update(mut m, mut opt, g)\n"
      "    return l\n";
  o.frozen = {"2"};
  const auto m = engine.load_onnx(path, o);
  if (!m) FAIL(m.diagnostics.at(0).render());
  REQUIRE(m.weights);
  CHECK(m.weights.paths() == std::vector<std::string>{"p_1"});  // b is a constant of the program
  std::vector<float> xs(4 * 10), ys(4 * 8, 0.5f);
  for (std::size_t i = 0; i < xs.size(); ++i)
    xs[i] = static_cast<float>((i * 7) % 11) / 11.0f - 0.5f;
  const auto x = ss::Tensor::of(xs, {4, 10}), y = ss::Tensor::of(ys, {4, 8});
  ss::Value w = m.module.copy(m.weights);
  ss::Value opt = m.module.make_optimizer("SGD", w, {{"lr", 0.5}});
  REQUIRE(opt);
  double first = 0, last = 0;
  for (int k = 0; k < 30; ++k) {
    const auto r = m.module.call("step", {ss::mut(w), ss::mut(opt), x, y});
    REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? "" : r.diagnostics[0].message));
    (k == 0 ? first : last) = r.value().number();
  }
  CHECK(last < first * 0.5);
  CHECK(m.weights.tensors().at("p_1").to_floats() != w.tensors().at("p_1").to_floats());
}

TEST_CASE("shapescript import writes the program and its weights, and run executes an .onnx") {
  if (!have_importer()) return;
  if (ss::test::backend_data_root().empty())
    return ss::test::skip("ONNX's test data isn't installed");
  ss::test::TempDir dir;
  const std::string model =
      ss::test::backend_data_root() + "/pytorch-converted/test_Linear/model.onnx";
  const auto imported = ss::test::run_process(
      {ss::test::kCliPath, "import", model, "-o", dir.path() + "/lin.ss"}, {.merge_stderr = true});
  CHECK_MESSAGE(imported.exit_code == 0, imported.out);
  CHECK(std::filesystem::exists(dir.path() + "/lin.safetensors"));
  CHECK(ss::Engine().check_file(dir.path() + "/lin.ss").empty());
  // run: the inputs by the graph's names, the outputs written by its names.
  std::map<std::string, ss::Tensor> in = {
      {"0", ss::Tensor::of(std::vector<float>(40, 1.0f), {4, 10})}};
  REQUIRE(ss::write_tensor_file(dir.path() + "/in.safetensors", in, nullptr));
  const auto ran = ss::test::run_process(
      {ss::test::kCliPath, "run", model, "--inputs", dir.path() + "/in.safetensors", "--outputs",
       dir.path() + "/out.safetensors"},
      {.merge_stderr = true});
  CHECK_MESSAGE(ran.exit_code == 0, ran.out);
  std::map<std::string, ss::Tensor> out;
  REQUIRE(ss::read_tensor_file(dir.path() + "/out.safetensors", &out, nullptr));
  REQUIRE(out.count("3"));
  CHECK(out.at("3").shape() == std::vector<std::int64_t>{4, 8});
  // An int64 output goes back as the model's int64 (I64), an input of
  // int64 in as i32.
  const std::string argmax =
      ss::test::backend_data_root() + "/node/test_argmax_default_axis_random";
  ss::Tensor data, expected;
  REQUIRE(ss::read_onnx_tensor(read_all(argmax + "/test_data_set_0/input_0.pb"), &data, nullptr,
                               nullptr, ss::test::built::onnx));
  REQUIRE(ss::read_onnx_tensor(read_all(argmax + "/test_data_set_0/output_0.pb"), &expected,
                               nullptr, nullptr, ss::test::built::onnx));
  REQUIRE(ss::write_tensor_file(dir.path() + "/data.safetensors", {{"data", data}}, nullptr));
  const auto picked = ss::test::run_process(
      {ss::test::kCliPath, "run", argmax + "/model.onnx", "--inputs",
       dir.path() + "/data.safetensors", "--outputs", dir.path() + "/result.safetensors"},
      {.merge_stderr = true});
  CHECK_MESSAGE(picked.exit_code == 0, picked.out);
  CHECK(ss::test::read_file(dir.path() + "/result.safetensors").find("\"dtype\":\"I64\"") !=
        std::string::npos);
  std::map<std::string, ss::Tensor> result;
  REQUIRE(ss::read_tensor_file(dir.path() + "/result.safetensors", &result, nullptr));
  CHECK(result.at("result").to_floats() == expected.to_floats());
  const auto refused = ss::test::run_process(
      {ss::test::kCliPath, "import", source_path("tests/onnx/models/determinant.onnx"), "-o",
       dir.path() + "/d.ss"},
      {.merge_stderr = true});
  CHECK(refused.exit_code == 1);
  CHECK(refused.out.find("error[E2004]") != std::string::npos);
}

TEST_CASE("the ops the importer lists include every op of the models it targets") {
  if (!have_importer()) return;
  const auto ops = ss::onnx_supported_ops(nullptr, ss::test::built::onnx);
  const std::set<std::string> supported(ops.begin(), ops.end());
  std::ifstream in(source_path("tests/onnx/model_ops.txt"));
  std::set<std::string> missing;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("attributes", 0) == 0) continue;
    std::istringstream words(line.substr(line.find('\t') + 1));
    for (std::string op; words >> op;)
      if (!supported.count(op)) missing.insert(op);
  }
  CHECK_MESSAGE(
      missing.empty(), "not translated: " << [&] {
        std::string s;
        for (const auto& op : missing) s += op + " ";
        return s;
      }());
}

TEST_CASE("a symbolic batch axis is a generic axis, or where it can't be, sized at import") {
  if (!have_importer()) return;
  ss::Engine engine;
  {  // relu keeps it generic: one import, any batch
    const auto m = engine.load_onnx(source_path("tests/onnx/models/relu_batch.onnx"), options());
    REQUIRE_MESSAGE(m, (m.diagnostics.empty() ? "" : m.diagnostics[0].message));
    CHECK(m.translation.generic);
    CHECK(m.translation.source.find("fn forward(x: [batch 3]) -> [batch 3]:") != std::string::npos);
    CHECK(m.translation.inputs.at(0).shape == std::vector<std::int64_t>{-1, 3});
    CHECK(m.translation.inputs.at(0).axes == std::vector<std::string>{"batch", ""});
    for (const std::int64_t rows : {5, 7}) {
      std::vector<float> xs(static_cast<std::size_t>(rows * 3), -1.0f);
      const auto r = m.module.call(
          "forward", m.arguments(std::vector<ss::Tensor>{ss::Tensor::of(xs, {rows, 3})}));
      REQUIRE(r);
      CHECK(r.tensor().to_floats() == std::vector<float>(xs.size(), 0.0f));
    }
  }
  // The batch size as a value (x divided by it): the program reads the
  // generic axis's size at each call.
  const std::string path = source_path("tests/onnx/models/batch_value.onnx");
  ss::OnnxOptions o = options();
  const auto m = engine.load_onnx(path, o);
  REQUIRE_MESSAGE(m, (m.diagnostics.empty() ? "" : m.diagnostics[0].message));
  CHECK(m.translation.generic);
  for (const std::int64_t rows : {4, 6}) {
    const auto r = m.module.call(
        "forward", m.arguments(std::vector<ss::Tensor>{ss::Tensor::of(
                       std::vector<float>(static_cast<std::size_t>(rows * 3), 2.0f), {rows, 3})}));
    REQUIRE(r);
    CHECK(r.tensor().to_floats() ==
          std::vector<float>(static_cast<std::size_t>(rows * 3), 2.0f / static_cast<float>(rows)));
  }
  // Sizes for no open axis of the graph: E2007.
  o.dims["nothing"] = 4;
  const auto misnamed = engine.load_onnx(path, o);
  REQUIRE_FALSE(misnamed.diagnostics.empty());
  CHECK(misnamed.diagnostics[0].code == "E2007");
}

TEST_CASE(
    "a CNN runs channels last inside, permuted once at each edge, and agrees with ONNX Runtime") {
  if (!have_importer()) return;
  const std::string dir = source_path("tests/onnx/models/");
  ss::Tensor image, want;
  REQUIRE(ss::read_onnx_tensor(read_all(dir + "small_cnn_input.pb"), &image, nullptr, nullptr,
                               ss::test::built::onnx));
  REQUIRE(ss::read_onnx_tensor(read_all(dir + "small_cnn_output.pb"), &want, nullptr, nullptr,
                               ss::test::built::onnx));
  for (const auto executor : {ss::Executor::fast, ss::Executor::reference}) {
    ss::Engine engine({.executor = executor});
    const auto m = engine.load_onnx(dir + "small_cnn.onnx", options());
    REQUIRE_MESSAGE(m, (m.diagnostics.empty() ? "" : m.diagnostics[0].render()));
    const std::string& src = m.translation.source;
    auto count = [&](const std::string& what) {
      std::size_t n = 0;
      for (auto at = src.find(what); at != std::string::npos; at = src.find(what, at + 1)) ++n;
      return n;
    };
    // In at the image, out before Flatten: nothing around each conv or pool.
    CHECK(count("rearrange(image, a0 a1 a2 a3 -> a0 a2 a3 a1)") == 1);
    CHECK(count("a0 a1 a2 a3 -> a0 a3 a1 a2") == 1);
    CHECK(src.find("param w1: [3 3 3 4]") != std::string::npos);  // the kernel permuted at import
    const auto r = m.module.call("forward", m.arguments(std::vector<ss::Tensor>{image}));
    REQUIRE(r);
    const auto got = r.tensor().to_floats(), expected = want.to_floats();
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      CHECK(got[i] == doctest::Approx(expected[i]).epsilon(1e-4));
  }
}

// A model of tests/onnx/models/ with its inputs (PREFIX_NAME.pb) and ONNX
// Runtime's outputs (PREFIX_out_NAME.pb), held to them.
void check_against_runtime(const std::string& prefix) {
  const std::string dir = source_path("tests/onnx/models/");
  auto tensor = [&](const std::string& file) {
    ss::Tensor out;
    REQUIRE(
        ss::read_onnx_tensor(read_all(dir + file), &out, nullptr, nullptr, ss::test::built::onnx));
    return out;
  };
  ss::Engine engine;
  const auto m = engine.load_onnx(dir + prefix + ".onnx", options());
  REQUIRE_MESSAGE(m, (m.diagnostics.empty() ? "" : m.diagnostics[0].render()));
  std::vector<ss::Tensor> inputs;
  for (const auto& port : m.translation.inputs)
    inputs.push_back(tensor(prefix + "_" + port.onnx_name + ".pb"));
  const auto r = m.module.call("forward", m.arguments(inputs));
  REQUIRE(r);
  const auto got = ss::OnnxModel::results(r);
  REQUIRE(got.size() == m.translation.outputs.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    const auto& name = m.translation.outputs[k].onnx_name;
    CAPTURE(name);
    const auto want = tensor(prefix + "_out_" + name + ".pb");
    CHECK(got[k].shape() == want.shape());
    const auto g = got[k].to_floats(), w = want.to_floats();
    REQUIRE(g.size() == w.size());
    for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == doctest::Approx(w[i]).epsilon(1e-5));
  }
}

TEST_CASE("Einsum and CumSum agree with ONNX Runtime") {
  if (!have_importer()) return;
  check_against_runtime("einsum_cumsum");
}

TEST_CASE("a bidirectional LSTM with peepholes runs as two scans and agrees with ONNX Runtime") {
  if (!have_importer()) return;
  check_against_runtime("bilstm");
  const auto m = ss::Engine().load_onnx(source_path("tests/onnx/models/bilstm.onnx"), options());
  REQUIRE(m);
  std::size_t scans = 0;
  for (auto at = m.translation.source.find(" in slices("); at != std::string::npos;
       at = m.translation.source.find(" in slices(", at + 1))
    ++scans;
  CHECK(scans == 2);
}

TEST_CASE("an imported MLP trains on cpu[0 1] to one device's losses, within the devices row") {
  if (!have_importer()) return;
  // examples/embed's classifier: PyTorch's MLP 784-256-256-10 from ONNX,
  // a loss and an SGD step added, run on one device and on two workers
  // splitting each batch (the `devices` line is the only difference).
  const std::string training =
      "dim K = 10\n"
      "data Example:\n"
      "    image: [784]\n"
      "    label: [] Index[K]\n"
      "fn loss(m: Onnx, batch: [b] Example) -> []:\n"
      "    return cross_entropy(forward(m, batch.image), batch.label, over=-1)\n"
      "fn step(mut m: Onnx, mut opt: SGD[Onnx], batch: [b] Example) -> []:\n"
      "    l, g = value_and_grad(loss, m, batch)\n"
      "    update(mut m, mut opt, g)\n"
      "    return l\n";
  constexpr std::int64_t kBatch = 32;
  std::vector<float> images(static_cast<std::size_t>(kBatch) * 784);
  std::vector<std::int32_t> labels(kBatch);
  for (std::size_t i = 0; i < images.size(); ++i)
    images[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f;
  for (std::int64_t i = 0; i < kBatch; ++i) labels[static_cast<std::size_t>(i)] = (i * 3) % 10;
  const ss::Engine engine;
  std::vector<std::vector<double>> losses;
  std::vector<std::string> trained;
  for (const std::string devices : {"", "devices cpu[0 1]\n"}) {
    CAPTURE(devices);
    ss::OnnxOptions o = options();
    o.extra_source = devices + training;
    std::size_t workers = 0;
    o.load.stats = [&](const ss::CallStats& stats) { workers = stats.workers.size(); };
    const auto m = engine.load_onnx(source_path("examples/embed/classifier.onnx"), o);
    REQUIRE_MESSAGE(m, m.diagnostics.at(0).render());
    ss::Value w = m.module.copy(m.weights);
    ss::Value opt = m.module.make_optimizer("SGD", w, {{"lr", 0.05}, {"momentum", 0.9}});
    const ss::Value batch =
        m.module.batch("Example", {{"image", ss::Tensor::view(images.data(), {kBatch, 784})},
                                   {"label", ss::Tensor::view(labels.data(), {kBatch})}});
    auto& run = losses.emplace_back();
    for (int k = 0; k < 8; ++k) {
      const auto r = m.module.call("step", {ss::mut(w), ss::mut(opt), batch});
      REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? "" : r.diagnostics[0].render()));
      run.push_back(r.value().number());
    }
    if (!devices.empty()) CHECK(workers == 2u);  // (one device runs no workers)
    std::string bytes;
    REQUIRE(m.module.save_bytes(w, &bytes).empty());
    trained.push_back(bytes);
  }
  const auto& row = ss::test::tolerance("devices");
  CHECK(losses[0].back() < losses[0].front() * 0.5);  // it trains
  for (std::size_t k = 0; k < losses[0].size(); ++k) {
    CAPTURE(k);
    CHECK(ss::test::agrees(losses[1][k], losses[0][k], 0.0, row));
  }
  // The trained weights too, value by value.
  std::map<std::string, ss::Tensor> one, two;
  std::vector<ss::Diagnostic> errors;
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string path = std::filesystem::temp_directory_path().string() + "/ss_onnx_devices_" +
                             std::to_string(i) + ".safetensors";
    std::ofstream(path, std::ios::binary) << trained[i];
    REQUIRE(ss::read_tensor_file(path, i == 0 ? &one : &two, &errors));
    std::filesystem::remove(path);
  }
  REQUIRE(one.size() == two.size());
  for (const auto& entry : one) {
    const std::string& name = entry.first;  // (clang 14: no CAPTURE of a binding)
    CAPTURE(name);
    const auto a = entry.second.to_floats(), b = two.at(name).to_floats();
    REQUIRE(a.size() == b.size());
    std::size_t outside = 0;
    for (std::size_t i = 0; i < a.size(); ++i) outside += !ss::test::agrees(b[i], a[i], 0.0, row);
    CHECK(outside == 0);
  }
}

TEST_CASE("PyTorch's attention imported from ONNX runs as the attention kernel") {
  if (!have_importer()) return;
  // nn.TransformerEncoder's export scales q and k^T by sqrt(1/sqrt(K))
  // apart (a constant the import folds): the MatMul of the two is written
  // as the scaled product of q and k, which the library finds as attention.
  const ss::Engine engine;
  const auto m = engine.load_onnx(source_path("tests/onnx/models/torch/nn_TransformerEncoder.onnx"),
                                  options());
  REQUIRE_MESSAGE(m, m.diagnostics.at(0).render());
  CHECK(m.translation.source.find("sqrt(") == std::string::npos);  // the scale folded
  std::vector<ss::Tensor> inputs;
  std::vector<std::vector<float>> buffers;
  for (const auto& port : m.translation.inputs) {
    std::vector<std::int64_t> shape = port.shape;
    std::int64_t count = 1;
    for (auto& d : shape) count *= (d = d < 0 ? 2 : d);
    auto& b = buffers.emplace_back(static_cast<std::size_t>(count));
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 13) / 13.0f - 0.5f;
    inputs.push_back(ss::Tensor::view(b.data(), shape));
  }
  const auto r = m.module.call("forward", m.arguments(inputs));
  REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? "" : r.diagnostics[0].render()));
  const auto stats = m.module.executor_stats();
  CHECK(stats.nodes.count("attention") == 1);
  CHECK(stats.nodes.at("attention") >= 1);
}

TEST_CASE("a reshape whose axes line up is one rearrange: axes merged, one split, 1s dropped") {
  if (!have_importer()) return;
  // A squeeze of a GRU's weights, the heads split from the projection and
  // merged back: one node each; heads folded into the batch (their axes
  // don't line up) stay a flatten and a split.
  const ss::Engine engine;
  const auto gru = engine.load_onnx(source_path("tests/onnx/models/torch/nn_GRU.onnx"), options());
  REQUIRE_MESSAGE(gru, gru.diagnostics.at(0).render());
  CHECK(gru.translation.source.find(", 1 a1 a2 -> a1 a2)") != std::string::npos);
  CHECK(gru.translation.source.find("(b0 b1") == std::string::npos);
  const auto encoder = engine.load_onnx(
      source_path("tests/onnx/models/torch/nn_TransformerEncoder.onnx"), options());
  REQUIRE_MESSAGE(encoder, encoder.diagnostics.at(0).render());
  const std::string& src = encoder.translation.source;
  CHECK(src.find(", a0 a1 (b2 b3) -> a0 a1 b2 b3, b2=3, b3=32)") != std::string::npos);
  CHECK(src.find(", a0 a1 a2 a3 -> (a0 a1) (a2 a3))") != std::string::npos);
  CHECK(src.find(", a0 a1 a2 1 a4 -> a0 a1 a2 a4)") != std::string::npos);
  CHECK(src.find(" -> (a0 a1 a2)), (b0 b1 b2) -> b0 b1 b2, b0=10, b1=batch*4, b2=8)") !=
        std::string::npos);
}

TEST_CASE("float arithmetic on constants folds at import, a comparison's result staying a bool") {
  if (!have_importer()) return;
  // sqrt(4) / 4 folds to 0.5: 0.5 < 1 and 1 > 0.5 are true (comparisons,
  // not folded as arithmetic), y = x * 0.5 * 0.5.
  const ss::Engine engine;
  const auto m = engine.load_onnx(source_path("tests/onnx/models/folded_floats.onnx"), options());
  REQUIRE_MESSAGE(m, m.diagnostics.at(0).render());
  CHECK(m.translation.source.find("sqrt(") == std::string::npos);  // folded
  std::vector<float> x = {4.0f, -8.0f, 1.0f};
  const auto r = m.module.call("forward", m.arguments({ss::Tensor::view(x.data(), {3})}));
  REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? "" : r.diagnostics[0].render()));
  const auto out = ss::OnnxModel::results(r);
  REQUIRE(out.size() == 3);
  CHECK(m.translation.source.find(" < ") == std::string::npos);  // folded too, as bools
  CHECK(out[0].to_floats() == std::vector<float>{1.0f});
  CHECK(out[1].to_floats() == std::vector<float>{1.0f});
  CHECK(out[2].to_floats() == std::vector<float>{1.0f, -2.0f, 0.25f});
}
