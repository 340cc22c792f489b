// Convolution through the C++ API, best microseconds per call: the CNN of
// examples/cnn (its training step, AdamW, at batch 64 and 256) and a conv
// layer alone at a ResNet-ish size (batch 8, 32x32, 64 to 64 channels, 3x3,
// padding 1), forward, and forward with backward. bench/conv.sh sets it
// beside PyTorch (bench/conv_torch.py) measured in the same run.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "best_time.hpp"
#include "shapescript/shapescript.hpp"

namespace {

// A conv layer alone: the kernel a model, so its gradient is a training step's.
constexpr const char* kLayer = R"(
model Layer:
    param k: [3 3 64 64] = normal(std=0.05)

fn forward(m: Layer, x: [b 32 32 64]) -> [b 32 32 64] = conv(x, m.k, over=[1 2], padding=1)
fn loss(m: Layer, x: [b 32 32 64]) -> []:
    y = forward(m, x)
    return sum(y * y)
fn gradient(m: Layer, x: [b 32 32 64]) -> Layer = grad(loss, m, x)
)";

std::vector<float> normal(std::size_t n, std::mt19937& gen) {
  std::normal_distribution<float> d;
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

// A call that must succeed: its diagnostics and exit otherwise.
void must(const ss::CallResult& r) {
  if (r) return;
  for (const auto& d : r.diagnostics) std::fprintf(stderr, "%s", d.render().c_str());
  std::exit(1);
}

ss::Module load(const ss::Engine& engine, const std::string& text, const char* name) {
  ss::Module m = engine.load_source(text, name);
  if (!m) {
    for (const auto& d : m.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    std::exit(1);
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
  const std::string root = argc > 2 ? argv[2] : ".";
  // A third argument runs only the case of that name (for a profiler).
  const std::string only = argc > 3 ? argv[3] : "";
  const auto wanted = [&](const std::string& name) { return only.empty() || only == name; };
  const ss::Engine engine(
      {.executor = ss::Executor::fast, .threads = threads, .numerics = ss::bench::numerics()});
  std::mt19937 gen(0);

  std::ifstream file(root + "/examples/cnn/cnn.ss");
  std::stringstream text;
  text << file.rdbuf();
  const ss::Module cnn = load(engine, text.str(), "cnn.ss");
  for (const std::int64_t b : {64, 256}) {
    if (!wanted("cnn_step_b" + std::to_string(b))) continue;
    ss::Value m = cnn.make("Cnn", {.seed = 0});
    ss::Value opt = cnn.make_optimizer("AdamW", m, {{"lr", 3e-3}, {"weight_decay", 0.01}});
    const auto pixels = normal(static_cast<std::size_t>(b * 64), gen);
    std::vector<std::int32_t> labels(static_cast<std::size_t>(b));
    for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int32_t>(i % 10);
    const ss::Value batch =
        cnn.batch("Digit", {{"pixels", ss::Tensor::view(pixels.data(), {b, 64})},
                            {"label", ss::Tensor::view(labels.data(), {b})}});
    const double us = ss::bench::best_seconds_per_call([&] {
                        must(cnn.call("train_step", {ss::mut(m), ss::mut(opt), batch}));
                      }) *
                      1e6;
    std::printf("cnn_step_b%lld %.1f\n", static_cast<long long>(b), us);
  }

  const ss::Module layer = load(engine, kLayer, "layer.ss");
  const ss::Value m = layer.make("Layer", {.seed = 0});
  const auto x = normal(8 * 32 * 32 * 64, gen);
  const ss::Tensor xt = ss::Tensor::view(x.data(), {8, 32, 32, 64});
  for (const char* fn : {"forward", "gradient"}) {
    if (!wanted(std::string("conv_") + fn)) continue;
    const double us = ss::bench::best_seconds_per_call([&] {
                        must(layer.call(fn, {m, xt}));
                      }) *
                      1e6;
    std::printf("conv_%s %.1f\n", fn, us);
  }
}
