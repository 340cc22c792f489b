// The GPU benchmark (tests/gpu/run.sh runs it where there is one): on
// cuda:0, one training step of the MLP 784-256-256-10 at batch 256 and one
// training call of a causal self-attention block (batch 8, seq 512,
// d_model 256, 8 heads: forward, backward, Adam), and examples/cnn's
// training step at batch 256 (from the working folder), best microseconds per
// call through the C++ API, as a host calls them (its state copied in and
// out each call), and the same two with the model and optimiser as values
// the library keeps on the GPU (`ss::mut`), the way a host trains: `_values`
// with a new batch from the host each call, `_resident` with a batch value
// already on the device. `bench_gpu [f32|tf32|bf16] [CACHE]` picks the
// contractions' precision and where compiled kernels are kept;
// bench/gpu_torch.py is the peer. On the stand-in driver (no-op kernels,
// bench/cuda_host_time.sh) the figures are the host's own time a call.
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "models.hpp"

int main(int argc, char** argv) {
  const std::string precision = argc > 1 ? argv[1] : "f32";
  ss::Engine engine({.device = ss::Device::cuda(0),
                     .precision = ss::parse_precision(precision).value_or(ss::Precision::f32),
                     .code_cache = argc > 2 ? ss::directory_code_cache(argv[2]) : ss::CodeCache{}});
  if (!engine.ok()) {
    for (const auto& d : engine.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    return 1;
  }
  const auto load = [&](const std::string& text, const char* name) {
    ss::Module m = engine.load_source(text, name);
    if (!m)
      for (const auto& d : m.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    return m;
  };
  std::mt19937 gen(0);
  const ss::Module mlp = load(ss::bench::kMlpProgram, "mlp.ss");
  const ss::Module attention = load(ss::bench::attention_program(512, 256, 8), "attention.ss");
  if (!mlp || !attention) return 1;

  auto training = ss::bench::mlp_parameters(gen);
  ss::bench::add_adam_state(training, 0.01f);
  training["batch.x"] = ss::Tensor::of(ss::bench::draw(256 * 784, gen, 1.0f), {256, 784});
  std::vector<std::int32_t> labels(256);
  for (auto& y : labels) y = static_cast<std::int32_t>(gen() % 10);
  training["batch.y"] = ss::Tensor::of(labels, {256});
  const double mlp_us =
      ss::bench::best_seconds_per_call([&] { ss::bench::train_call(mlp, "step", training); }, 0.3) *
      1e6;
  std::printf("mlp_train_b256 %.1f\n", mlp_us);

  auto state = ss::bench::attention_state(gen, 8, 512, 256);
  const double attention_us = ss::bench::best_seconds_per_call(
                                  [&] { ss::bench::train_call(attention, "step", state); }, 0.3) *
                              1e6;
  std::printf("attention_step %.1f\n", attention_us);
  // The model and optimiser as values kept on the device.
  const auto fail = [](const std::vector<ss::Diagnostic>& errors) {
    for (const auto& d : errors) std::fprintf(stderr, "%s", d.render().c_str());
    std::exit(1);
  };
  const auto value_calls = [&](const ss::Module& m, const char* model_type, const char* optimiser,
                               const std::string& batch_type,
                               const std::map<std::string, ss::Tensor>& fields, const char* name) {
    std::vector<ss::Diagnostic> errors;
    ss::Value model = m.make(model_type, {.seed = 0}, &errors);
    if (!model) fail(errors);
    ss::Value opt = m.make_optimizer(optimiser, model, {}, &errors);
    if (!opt) fail(errors);
    const auto call = [&](ss::Arg batch) {
      const auto r = m.call("step", {ss::mut(model), ss::mut(opt), std::move(batch)});
      if (!r) fail(r.diagnostics);
    };
    // A new batch from the host each call: its tensors copied in.
    const auto from_host = [&] {
      if (batch_type.empty()) return call(fields.begin()->second);
      call(m.batch(batch_type, fields));
    };
    std::printf("%s_values %.1f\n", name, ss::bench::best_seconds_per_call(from_host, 0.3) * 1e6);
    ss::Value resident =
        batch_type.empty() ? m.tensor(fields.begin()->second) : m.batch(batch_type, fields);
    std::printf("%s_resident %.1f\n", name,
                ss::bench::best_seconds_per_call([&] { call(resident); }, 0.3) * 1e6);
  };
  value_calls(mlp, "Mlp", "AdamW", "Ex", {{"x", training["batch.x"]}, {"y", training["batch.y"]}},
              "mlp_train_b256");
  value_calls(attention, "Attention", "Adam", "", {{"x", state["x"]}}, "attention_step");

  // examples/cnn's training step at batch 256, its state and batch on the
  // device (read from the source tree: the working folder).
  std::ifstream file("examples/cnn/cnn.ss");
  std::stringstream cnn_text;
  cnn_text << file.rdbuf();
  const ss::Module cnn = load(cnn_text.str(), "cnn.ss");
  if (cnn) {
    std::vector<float> pixels(256 * 64);
    for (auto& p : pixels) p = static_cast<float>(gen() % 17) / 16.0f;
    std::vector<std::int32_t> digits(256);
    for (std::size_t i = 0; i < digits.size(); ++i) digits[i] = static_cast<std::int32_t>(i % 10);
    std::vector<ss::Diagnostic> errors;
    ss::Value m = cnn.make("Cnn", {.seed = 0}, &errors);
    ss::Value opt = cnn.make_optimizer("AdamW", m, {{"lr", 3e-3}, {"weight_decay", 0.01}}, &errors);
    if (!m || !opt) fail(errors);
    const ss::Value batch = cnn.batch("Digit", {{"pixels", ss::Tensor::view(pixels.data(), {256, 64})},
                                                {"label", ss::Tensor::view(digits.data(), {256})}});
    const double us = ss::bench::best_seconds_per_call(
                          [&] {
                            const auto r = cnn.call("train_step", {ss::mut(m), ss::mut(opt), batch});
                            if (!r) fail(r.diagnostics);
                          },
                          0.3) *
                      1e6;
    std::printf("cnn_step_b256_resident %.1f\n", us);
  }
  for (const auto* m : {&mlp, &attention}) {
    const auto stats = m->executor_stats();
    std::fprintf(stderr, "executor %s:", stats.executor.c_str());
    for (const auto& [path, count] : stats.nodes)
      std::fprintf(stderr, " %s %lld;", path.c_str(), static_cast<long long>(count));
    std::fprintf(stderr, "\n");
  }
}
