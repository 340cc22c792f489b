// The GPU benchmark (tests/gpu/run.sh runs it where there is one): on
// cuda:0, one training step of the MLP 784-256-256-10 at batch 256 and one
// training call of a causal self-attention block (batch 8, seq 512,
// d_model 256, 8 heads: forward, backward, Adam), best microseconds per
// call through the C++ API, as a host calls them (its state copied in and
// out each call). `bench_gpu [f32|tf32|bf16] [CACHE]` picks the
// contractions' precision and where compiled kernels are kept;
// bench/gpu_torch.py is the peer.
#include <cstdio>
#include <random>
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
  for (const auto* m : {&mlp, &attention}) {
    const auto stats = m->executor_stats();
    std::fprintf(stderr, "executor %s:", stats.executor.c_str());
    for (const auto& [path, count] : stats.nodes)
      std::fprintf(stderr, " %s %lld;", path.c_str(), static_cast<long long>(count));
    std::fprintf(stderr, "\n");
  }
}
