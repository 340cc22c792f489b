// The MLP 784-256-256-10 through the C++ API, as a host calls it, the model
// and optimiser resident: forward (`logits`) at batch 1 and 64, and one
// training step (forward, cross-entropy, backward, AdamW) at batch 64 and 256, each the best
// microseconds per call over rounds of repeated calls, on the executor and
// threads given (`bench_mlp [reference|fast] [THREADS]`). Prints
// `name microseconds` lines for bench/mlp.sh to set beside its peers.
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

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
       .precision = executor == "bf16" ? ss::Precision::bf16 : ss::Precision::f32,
       .numerics = ss::bench::numerics()});
  const ss::Module m = engine.load_source(ss::bench::kMlpProgram, "mlp.ss");
  if (!m) {
    for (const auto& d : m.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    return 1;
  }
  std::mt19937 gen(0);
  // The model and optimiser resident in the library, as a host that trains
  // or serves keeps them (docs/embedding.md): weights and moments updated
  // in place, results written into the host's buffers.
  const ss::Value model = m.make("Mlp", {.seed = 0});
  for (const std::int64_t b : {1, 64}) {
    if (!wanted("forward_b" + std::to_string(b))) continue;
    const auto x = draw(static_cast<std::size_t>(b) * 784, gen, 1.0f);
    std::vector<float> out(static_cast<std::size_t>(b) * 10);
    const std::vector<ss::Arg> args{model, ss::Tensor::view(x.data(), {b, 784})};
    const std::vector<ss::Tensor> into{ss::Tensor::view(out.data(), {b, 10})};
    const double us = best_microseconds([&] {
      if (!m.call_into("logits", args, into)) std::abort();
    });
    std::printf("forward_b%lld %.1f\n", static_cast<long long>(b), us);
  }

  for (const std::int64_t b : {64, 256}) {
    if (!wanted("train_b" + std::to_string(b))) continue;
    ss::Value trained = m.copy(model);
    ss::Value opt = m.make_optimizer("AdamW", trained, {{"lr", 1e-3}, {"weight_decay", 0.01}});
    const auto x = draw(static_cast<std::size_t>(b) * 784, gen, 1.0f);
    std::vector<std::int32_t> labels(static_cast<std::size_t>(b));
    for (auto& y : labels) y = static_cast<std::int32_t>(gen() % 10);
    const ss::Value batch = m.batch("Ex", {{"x", ss::Tensor::view(x.data(), {b, 784})},
                                           {"y", ss::Tensor::view(labels.data(), {b})}});
    const double us = best_microseconds([&] {
      if (!m.call("step", {ss::mut(trained), ss::mut(opt), batch})) std::abort();
    });
    std::printf("train_b%lld %.1f\n", static_cast<long long>(b), us);
  }
}
