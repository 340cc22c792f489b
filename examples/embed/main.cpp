// A host application embedding libshapescript: load the digits program,
// call its `logits` at three batch sizes with parameters and pixels from
// host memory, read the results, and meet a mistake as a coded error.
//
//   embed_example examples/digits/digits.ss
#include <shapescript/shapescript.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr std::int64_t D = 64, H = 128, C = 10;

// Stand-in parameters; a real host would load a trained checkpoint.
std::vector<float> filled(std::int64_t n, double phase) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<float>(0.1 * std::sin(0.37 * i + phase));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: embed_example PROGRAM.ss\n");
    return 2;
  }
  ss::Engine engine({.device = ss::Device::cpu()});
  // The program's sink `metrics` gets what `write(metrics, ...)` sends; a
  // host binds every sink the program declares.
  ss::LoadOptions options;
  options.sinks["metrics"] = [](const ss::SinkRecord& record) {
    for (const auto& [name, value] : record) std::printf("%s=%g ", name.c_str(), value);
    std::printf("\n");
  };
  ss::Module mod = engine.load_file(argv[1], options);
  if (!mod) {
    for (const auto& d : mod.diagnostics()) std::cerr << d.render();
    return 1;
  }

  const std::size_t at_load = mod.prepared();  // every device function, lowered once

  // The host owns these buffers; the library reads them without copying.
  const auto w1 = filled(D * H, 0.5), b1 = filled(H, 1.0), w2 = filled(H * C, 1.5),
             b2 = filled(C, 2.0);
  const std::map<std::string, ss::Tensor> model = {
      {"m.w1", ss::Tensor::view(w1.data(), {D, H})},
      {"m.b1", ss::Tensor::view(b1.data(), {H})},
      {"m.w2", ss::Tensor::view(w2.data(), {H, C})},
      {"m.b2", ss::Tensor::view(b2.data(), {C})},
  };

  for (const std::int64_t batch : {1, 64, 1000}) {
    const auto pixels = filled(batch * D, 3.0);
    const ss::CallResult result =
        mod.call("logits", {ss::Tensor::view(pixels.data(), {batch, D})}, model);
    if (!result) {
      for (const auto& d : result.diagnostics) std::cerr << d.render();
      return 1;
    }
    const ss::Tensor& logits = result.tensor();
    std::printf("batch %4lld: logits [%lld %lld], first %.6f\n", static_cast<long long>(batch),
                static_cast<long long>(logits.shape()[0]),
                static_cast<long long>(logits.shape()[1]), logits.to_floats()[0]);
  }
  std::printf("prepared %zu function(s) at load, %zu more for 3 batch sizes\n", at_load,
              mod.prepared() - at_load);

  // A mistake: 63 pixels where the program says D = 64.
  const std::vector<float> short_row(63);
  const ss::CallResult wrong =
      mod.call("logits", {ss::Tensor::view(short_row.data(), {1, 63})}, model);
  if (wrong) return 1;
  std::cout << wrong.diagnostics[0].render();
  return 0;
}
