// What ONNX Runtime doesn't do: a host imports a classifier exported from
// PyTorch (classifier.onnx, by make_onnx_classifier.py), adds a loss and a
// training step to it, freezes all but its last layer, and fine-tunes it
// in place on its own data after the world changed (the images shifted,
// dimmer, with glare: classifier_data.safetensors' `shifted` prototypes);
// accuracy on held-out data rises, and the tuned weights are saved and
// load back. Only the public API: <shapescript/shapescript.hpp>.
//
//   onnx_finetune_example examples/embed OUTPUT_DIR
#include <shapescript/shapescript.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr int kClasses = 10, kPixels = 784;
constexpr float kNoise = 0.35f;  // make_onnx_classifier.py's NOISE

// The loss and the step, written against the imported `forward` and
// `Onnx`: cross-entropy over a batch of examples, SGD with momentum.
constexpr const char* kTraining = R"(
dim K = 10
dim P = 784

data Example:
    image: [P]
    label: [] Index[K]

fn loss(m: Onnx, batch: [b] Example) -> []:
    return cross_entropy(forward(m, batch.image), batch.label, over=-1)

fn step(mut m: Onnx, mut opt: SGD[Onnx], batch: [b] Example) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l
)";

bool report(const std::vector<ss::Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics) std::cerr << d.render();
  return ss::has_errors(diagnostics);
}

// Samples of a world: each a class's prototype plus Gaussian noise, from a
// seeded generator (Box-Muller over a 64-bit LCG), labels cycling.
struct Samples {
  std::vector<float> images;
  std::vector<std::int32_t> labels;
};

Samples sample(const std::vector<float>& prototypes, int count, std::uint64_t seed) {
  Samples s;
  s.images.resize(static_cast<std::size_t>(count) * kPixels);
  std::uint64_t state = seed;
  const auto uniform = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
  };
  for (int i = 0; i < count; ++i) {
    const int c = (i * 7 + static_cast<int>(seed % 10)) % kClasses;
    s.labels.push_back(c);
    for (int p = 0; p < kPixels; ++p) {
      const double noise =
          std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
      s.images[static_cast<std::size_t>(i) * kPixels + p] =
          prototypes[static_cast<std::size_t>(c) * kPixels + p] +
          kNoise * static_cast<float>(noise);
    }
  }
  return s;
}

// The share of `s` the model labels right: forward at the held-out batch's
// size, the largest logit's class.
double accuracy(const ss::OnnxModel& model, const ss::Value& weights, const Samples& s) {
  const auto count = static_cast<std::int64_t>(s.labels.size());
  std::vector<float> logits(static_cast<std::size_t>(count) * kClasses);
  const auto r = model.module.call_into(
      "forward", {weights, ss::Tensor::view(s.images.data(), {count, kPixels})},
      {ss::Tensor::view(logits.data(), {count, kClasses})});
  if (!r) return -1;
  int right = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const float* row = logits.data() + i * kClasses;
    right += std::max_element(row, row + kClasses) - row == s.labels[static_cast<std::size_t>(i)];
  }
  return static_cast<double>(right) / static_cast<double>(count);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: onnx_finetune_example EXAMPLES_EMBED_DIR OUTPUT_DIR\n";
    return 2;
  }
  const std::string dir = argv[1], out = argv[2];
  std::map<std::string, ss::Tensor> data;
  std::vector<ss::Diagnostic> errors;
  if (!ss::read_tensor_file(dir + "/classifier_data.safetensors", &data, &errors))
    return report(errors), 1;

  // Import, with the training code added and the first two layers frozen:
  // they become constants of the program, so the model value (and what
  // training changes) is the last layer alone.
  ss::OnnxOptions options;
  options.extra_source = kTraining;
  options.frozen = {"0.weight", "0.bias", "2.weight", "2.bias"};
  const ss::Engine engine;
  const ss::OnnxModel model = engine.load_onnx(dir + "/classifier.onnx", options);
  if (!model) return report(model.diagnostics), 1;
  std::cout << "imported classifier.onnx: " << model.translation.inputs.at(0).name << " -> "
            << model.translation.outputs.at(0).name << ", trainable:";
  for (const auto& path : model.weights.paths()) std::cout << " " << path;
  std::cout << "\n";

  // It computes what PyTorch did.
  const auto check = model.module.call("forward", model.arguments({data.at("check_x")}));
  if (!check) return report(check.diagnostics), 1;
  const auto got = ss::OnnxModel::results(check).at(0).to_floats();
  const auto want = data.at("check_logits").to_floats();
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - want[i]) / (1e-5 + std::abs(want[i])));
  std::printf("matches PyTorch: worst relative difference %.1e over %zu logits\n", worst,
              want.size());
  if (worst > 1e-3) return 1;

  // The world changed: fine-tune on 600 examples of it, hold 500 out.
  const auto shifted = data.at("shifted").to_floats();
  const Samples train = sample(shifted, 600, 1), held = sample(shifted, 500, 2);
  ss::Value weights = model.module.copy(model.weights);
  const double before = accuracy(model, weights, held);
  std::printf("held-out accuracy in the shifted world before fine-tuning: %.3f\n", before);
  ss::Value opt = model.module.make_optimizer("SGD", weights, {{"lr", 0.05}, {"momentum", 0.9}});
  if (!opt) return 1;
  constexpr int kBatch = 50, kEpochs = 8;
  double loss = 0;
  for (int epoch = 0; epoch < kEpochs; ++epoch) {
    for (int first = 0; first < 600; first += kBatch) {
      const ss::Value batch = model.module.batch(
          "Example",
          {{"image", ss::Tensor::view(train.images.data() + first * kPixels, {kBatch, kPixels})},
           {"label", ss::Tensor::view(train.labels.data() + first, {kBatch})}});
      const auto r = model.module.call("step", {ss::mut(weights), ss::mut(opt), batch});
      if (!r) return report(r.diagnostics), 1;
      loss = r.value().number();
    }
  }
  const double after = accuracy(model, weights, held);
  std::printf("fine-tuned the last layer for %d epochs (loss %.3f): held-out accuracy %.3f\n",
              kEpochs, loss, after);
  if (!(after > before + 0.1)) {
    std::cerr << "accuracy didn't rise\n";
    return 1;
  }

  // Saved, and loaded back into a fresh import: the same predictions.
  const std::string path = out + "/classifier_tuned.safetensors";
  if (report(model.module.save(weights, path))) return 1;
  const ss::OnnxModel again = engine.load_onnx(dir + "/classifier.onnx", options);
  ss::Value loaded = again.module.load("Onnx", path);
  if (!loaded) return 1;
  const double reloaded = accuracy(again, loaded, held);
  std::printf("saved %s and loaded it back: held-out accuracy %.3f (%s)\n", path.c_str(), reloaded,
              reloaded == after ? "identical" : "different");
  return reloaded == after ? 0 : 1;
}
