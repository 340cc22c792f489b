// A causal self-attention block (batch 8, seq 128, d_model 64, 4 heads)
// through the C++ API: one training call, forward, backward (the loss is
// the output's sum of squares) and an Adam step, best microseconds per
// call. `bench_attention [reference|fast]`; bench/attention.sh sets it
// beside PyTorch.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "models.hpp"

int main(int argc, char** argv) {
  const std::string executor = argc > 1 ? argv[1] : "fast";
  const int threads = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
  ss::Engine engine(
      {.executor = executor == "reference" ? ss::Executor::reference : ss::Executor::fast,
       .threads = threads,
       .numerics = ss::bench::numerics()});
  const ss::Module m = engine.load_source(ss::bench::attention_program(128, 64, 4), "attention.ss");
  if (!m) {
    for (const auto& d : m.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    return 1;
  }
  std::mt19937 gen(0);
  auto state = ss::bench::attention_state(gen, 8, 128, 64);
  const double us =
      ss::bench::best_seconds_per_call([&] { ss::bench::train_call(m, "step", state); },
                                       executor == "reference" ? 2.0 : 0.3) *
      1e6;
  std::printf("attention_step %.1f\n", us);
  // What ran the nodes, on standard error: where the time may be going.
  for (const auto& [path, count] : m.executor_stats().nodes)
    std::fprintf(stderr, "%12lld  %s\n", static_cast<long long>(count), path.c_str());
}
