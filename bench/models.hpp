// The benchmarks' models, shared by the CPU ones (bench_mlp,
// bench_attention) and the GPU one (bench_gpu): the MLP 784-256-256-10 and
// a causal self-attention block of any size, with their starting states
// (parameters drawn from a seeded generator, optimiser state zero).
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "best_time.hpp"
#include "shapescript/shapescript.hpp"

namespace ss::bench {

inline constexpr const char* kMlpProgram = R"(
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

// Sequence `t`, model width `e`, `h` heads; the loss is the output's sum
// of squares, the optimiser Adam.
inline std::string attention_program(int t, int e, int h) {
  return "dim T = " + std::to_string(t) + "\ndim E = " + std::to_string(e) +
         "\ndim H = " + std::to_string(h) + "\ndim K = " + std::to_string(e / h) + R"(

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
}

// The optimiser's hyper-parameters and zero moments for `params` ("m.w1"
// gives "opt.exp_avg.w1" and "opt.exp_avg_sq.w1"), added to `state`.
inline void add_adam_state(std::map<std::string, Tensor>& state, float weight_decay) {
  std::vector<std::pair<std::string, Tensor>> moments;
  for (const auto& [name, value] : state) {
    const auto dot = name.find('.');
    if (dot == std::string::npos) continue;
    for (const char* s : {"opt.exp_avg.", "opt.exp_avg_sq."})
      moments.emplace_back(
          s + name.substr(dot + 1),
          Tensor::of(std::vector<float>(static_cast<std::size_t>(value.size())), value.shape()));
  }
  state.insert(moments.begin(), moments.end());
  for (const auto& [name, value] : std::map<std::string, float>{{"opt.lr", 1e-3f},
                                                                {"opt.beta1", 0.9f},
                                                                {"opt.beta2", 0.999f},
                                                                {"opt.eps", 1e-8f},
                                                                {"opt.weight_decay", weight_decay},
                                                                {"opt.step", 0.0f}})
    state[name] = Tensor::scalar(value);
}

inline std::map<std::string, Tensor> mlp_parameters(std::mt19937& gen) {
  return {{"m.w1", Tensor::of(draw(784 * 256, gen, 0.05f), {784, 256})},
          {"m.b1", Tensor::of(std::vector<float>(256), {256})},
          {"m.w2", Tensor::of(draw(256 * 256, gen, 0.05f), {256, 256})},
          {"m.b2", Tensor::of(std::vector<float>(256), {256})},
          {"m.w3", Tensor::of(draw(256 * 10, gen, 0.05f), {256, 10})},
          {"m.b3", Tensor::of(std::vector<float>(10), {10})}};
}

// The attention block's parameters and Adam state, and its input x
// [batch t e].
inline std::map<std::string, Tensor> attention_state(std::mt19937& gen, std::int64_t batch,
                                                     std::int64_t t, std::int64_t e) {
  std::map<std::string, Tensor> state;
  const float scale = 1.0f / std::sqrt(static_cast<float>(e));
  for (const char* p : {"wq", "wk", "wv", "wo"})
    state[std::string("a.") + p] =
        Tensor::of(draw(static_cast<std::size_t>(e * e), gen, scale), {e, e});
  add_adam_state(state, 0.0f);
  state["x"] = Tensor::of(draw(static_cast<std::size_t>(batch * t * e), gen, 1.0f), {batch, t, e});
  return state;
}

// One training call of `function`, its updated state written back; aborts
// on an error (a benchmark has no other answer to give).
inline void train_call(const Module& m, const std::string& function,
                       std::map<std::string, Tensor>& state) {
  const auto r = m.call(function, {}, state);
  if (!r) {
    std::fprintf(stderr, "%s", r.diagnostics.at(0).render().c_str());
    std::abort();
  }
  for (std::size_t i = 0; i < r.updated.size(); ++i) state[r.updated[i]] = r.outputs[1 + i];
}

}  // namespace ss::bench
