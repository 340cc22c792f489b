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

#include "best_time.hpp"
#include "shapescript/shapescript.hpp"

using ss::bench::draw;

namespace {

constexpr const char* kProgram = R"(
dim T = 128
dim E = 64
dim H = 4
dim K = 16

model Attention:
    param wq: [E E] = glorot
    param wk: [E E] = glorot
    param wv: [E E] = glorot
    param wo: [H*K E] = glorot

fn heads(x: [b T E]) -> [b H T K] = rearrange(x, b t (h k) -> b h t k, h=H)

fn attend(a: Attention, x: [b T E]) -> [b T E]:
    q = heads(x @ a.wq)
    k = heads(x @ a.wk)
    v = heads(x @ a.wv)
    scores = einsum(q, k, b h i d, b h j d -> b h i j) / sqrt(f32(K))
    weights = softmax(causal(scores), over=-1)
    mixed = einsum(weights, v, b h i j, b h j d -> b h i d)
    return rearrange(mixed, b h t k -> b t (h k)) @ a.wo

fn loss(a: Attention, x: [b T E]) -> [] = sum(attend(a, x) * attend(a, x))

fn step(mut a: Attention, mut opt: Adam[Attention], x: [b T E]) -> []:
    l, g = value_and_grad(loss, a, x)
    update(mut a, mut opt, g)
    return l
)";

}  // namespace

int main(int argc, char** argv) {
  const std::string executor = argc > 1 ? argv[1] : "fast";
  const int threads = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
  ss::Engine engine(
      {.executor = executor == "reference" ? ss::Executor::reference : ss::Executor::fast,
       .threads = threads});
  const ss::Module m = engine.load_source(kProgram, "attention.ss");
  if (!m) {
    for (const auto& d : m.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    return 1;
  }
  std::mt19937 gen(0);
  std::map<std::string, ss::Tensor> state;
  for (const char* p : {"wq", "wk", "wv", "wo"}) {
    state[std::string("a.") + p] = ss::Tensor::of(draw(64 * 64, gen, 0.125f), {64, 64});
    for (const char* s : {"opt.exp_avg.", "opt.exp_avg_sq."})
      state[std::string(s) + p] = ss::Tensor::of(std::vector<float>(64 * 64), {64, 64});
  }
  for (const auto& [name, value] : std::map<std::string, float>{{"opt.lr", 1e-3f},
                                                                {"opt.beta1", 0.9f},
                                                                {"opt.beta2", 0.999f},
                                                                {"opt.eps", 1e-8f},
                                                                {"opt.weight_decay", 0.0f},
                                                                {"opt.step", 0.0f}})
    state[name] = ss::Tensor::scalar(value);
  state["x"] = ss::Tensor::of(draw(8 * 128 * 64, gen, 1.0f), {8, 128, 64});
  const double us = ss::bench::best_seconds_per_call(
                        [&] {
                          const auto r = m.call("step", {}, state);
                          if (!r) {
                            std::fprintf(stderr, "%s", r.diagnostics[0].render().c_str());
                            std::abort();
                          }
                          for (std::size_t i = 0; i < r.updated.size(); ++i)
                            state[r.updated[i]] = r.outputs[1 + i];
                        },
                        executor == "reference" ? 2.0 : 0.3) *
                    1e6;
  std::printf("attention_step %.1f\n", us);
  // What ran the nodes, on standard error: where the time may be going.
  for (const auto& [path, count] : m.executor_stats().nodes)
    std::fprintf(stderr, "%12lld  %s\n", static_cast<long long>(count), path.c_str());
}
