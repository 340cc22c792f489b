// The MLP 784-256-256-10 through the C++ API, as a host calls it: forward
// (`logits`) at batch 1 and 64, and one training step (forward,
// cross-entropy, backward, AdamW) at batch 64 and 256, each the best
// microseconds per call over rounds of repeated calls, on the executor and
// threads given (`bench_mlp [reference|fast] [THREADS]`). Prints
// `name microseconds` lines for bench/mlp.sh to set beside its peers.
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>

#include "models.hpp"

using ss::bench::draw;

namespace {

double best_microseconds(const std::function<void()>& f) {
  return ss::bench::best_seconds_per_call(f, 0.2) * 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string executor = argc > 1 ? argv[1] : "fast";
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  // A third argument runs only the case of that name (for a profiler).
  const std::string only = argc > 3 ? argv[3] : "";
  const auto wanted = [&](const std::string& name) { return only.empty() || only == name; };
  // "bf16": the fast executor with --precision bf16 (float32 where the CPU
  // lacks AVX512-BF16).
  ss::Engine engine(
      {.executor = executor == "reference" ? ss::Executor::reference : ss::Executor::fast,
       .threads = threads,
       .precision = executor == "bf16" ? ss::Precision::bf16 : ss::Precision::f32});
  const ss::Module m = engine.load_source(ss::bench::kMlpProgram, "mlp.ss");
  if (!m) {
    for (const auto& d : m.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    return 1;
  }
  std::mt19937 gen(0);
  const auto state = ss::bench::mlp_parameters(gen);

  for (const std::int64_t b : {1, 64}) {
    if (!wanted("forward_b" + std::to_string(b))) continue;
    auto inputs = state;
    inputs["x"] = ss::Tensor::of(draw(static_cast<std::size_t>(b) * 784, gen, 1.0f), {b, 784});
    const double us = best_microseconds([&] {
      if (!m.call("logits", {}, inputs)) std::abort();
    });
    std::printf("forward_b%lld %.1f\n", static_cast<long long>(b), us);
  }

  auto training = state;
  ss::bench::add_adam_state(training, 0.01f);
  for (const std::int64_t b : {64, 256}) {
    if (!wanted("train_b" + std::to_string(b))) continue;
    training["batch.x"] =
        ss::Tensor::of(draw(static_cast<std::size_t>(b) * 784, gen, 1.0f), {b, 784});
    std::vector<std::int32_t> labels(static_cast<std::size_t>(b));
    for (auto& y : labels) y = static_cast<std::int32_t>(gen() % 10);
    training["batch.y"] = ss::Tensor::of(labels, {b});
    const double us = best_microseconds([&] { ss::bench::train_call(m, "step", training); });
    std::printf("train_b%lld %.1f\n", static_cast<long long>(b), us);
  }
}
