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

#include "best_time.hpp"
#include "shapescript/shapescript.hpp"

using ss::bench::draw;

namespace {

constexpr const char* kProgram = R"(
dim D = 784
dim H = 256
dim C = 10

data Ex:
    x: [D]
    y: [] Index[C]

model Mlp:
    param w1: [D H] = normal(std=0.05)
    param b1: [H] = zeros
    param w2: [H H] = normal(std=0.05)
    param b2: [H] = zeros
    param w3: [H C] = normal(std=0.05)
    param b3: [C] = zeros

fn logits(m: Mlp, x: [b D]) -> [b C]:
    h = relu(x @ m.w1 + m.b1)
    h2 = relu(h @ m.w2 + m.b2)
    return h2 @ m.w3 + m.b3

fn loss(m: Mlp, batch: [b] Ex) -> []:
    return cross_entropy(logits(m, batch.x), batch.y, over=C)

fn step(mut m: Mlp, mut opt: AdamW[Mlp], batch: [b] Ex) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l
)";

double best_microseconds(const std::function<void()>& f) {
  return ss::bench::best_seconds_per_call(f, 0.2) * 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string executor = argc > 1 ? argv[1] : "fast";
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  ss::Engine engine(
      {.executor = executor == "reference" ? ss::Executor::reference : ss::Executor::fast,
       .threads = threads});
  const ss::Module m = engine.load_source(kProgram, "mlp.ss");
  if (!m) {
    for (const auto& d : m.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    return 1;
  }
  std::mt19937 gen(0);
  std::map<std::string, ss::Tensor> state = {
      {"m.w1", ss::Tensor::of(draw(784 * 256, gen, 0.05f), {784, 256})},
      {"m.b1", ss::Tensor::of(std::vector<float>(256), {256})},
      {"m.w2", ss::Tensor::of(draw(256 * 256, gen, 0.05f), {256, 256})},
      {"m.b2", ss::Tensor::of(std::vector<float>(256), {256})},
      {"m.w3", ss::Tensor::of(draw(256 * 10, gen, 0.05f), {256, 10})},
      {"m.b3", ss::Tensor::of(std::vector<float>(10), {10})}};

  for (const std::int64_t b : {1, 64}) {
    auto inputs = state;
    inputs["x"] = ss::Tensor::of(draw(static_cast<std::size_t>(b) * 784, gen, 1.0f), {b, 784});
    const double us = best_microseconds([&] {
      if (!m.call("logits", {}, inputs)) std::abort();
    });
    std::printf("forward_b%lld %.1f\n", static_cast<long long>(b), us);
  }

  auto training = state;
  for (const auto& [name, value] : std::map<std::string, float>{{"opt.lr", 1e-3f},
                                                                {"opt.beta1", 0.9f},
                                                                {"opt.beta2", 0.999f},
                                                                {"opt.eps", 1e-8f},
                                                                {"opt.weight_decay", 0.01f},
                                                                {"opt.step", 0.0f}})
    training[name] = ss::Tensor::scalar(value);
  for (const char* p : {"w1", "b1", "w2", "b2", "w3", "b3"})
    for (const char* s : {"opt.exp_avg.", "opt.exp_avg_sq.", ""}) {
      if (!*s) continue;
      const auto& param = state.at(std::string("m.") + p);
      training[std::string(s) + p] =
          ss::Tensor::of(std::vector<float>(static_cast<std::size_t>(param.size())), param.shape());
    }
  for (const std::int64_t b : {64, 256}) {
    training["batch.x"] =
        ss::Tensor::of(draw(static_cast<std::size_t>(b) * 784, gen, 1.0f), {b, 784});
    std::vector<std::int32_t> labels(static_cast<std::size_t>(b));
    for (auto& y : labels) y = static_cast<std::int32_t>(gen() % 10);
    training["batch.y"] = ss::Tensor::of(labels, {b});
    const double us = best_microseconds([&] {
      const auto r = m.call("step", {}, training);
      if (!r) std::abort();
      for (std::size_t i = 0; i < r.updated.size(); ++i) training[r.updated[i]] = r.outputs[1 + i];
    });
    std::printf("train_b%lld %.1f\n", static_cast<long long>(b), us);
  }
}
