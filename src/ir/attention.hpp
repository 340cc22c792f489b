// Attention as one node. Programs write it as a chain: scores = einsum(q,
// k) scaled by a multiply or a divide (or not), maybe `causal`, softmax
// over the keys' axis, then an einsum of the weights with v. fuse_attention
// finds that chain and puts one `attention` node in place of its last
// einsum, its body the chain itself (so an executor without a fused kernel
// runs exactly what the program wrote); the fast CPU executor runs it as
// one kernel, flash-style, forward and backward (runtime/fast/attention).
// Its gradient is one `attention_grad` node giving dq, dk and dv at once,
// its body the chain's gradient as autodiff writes it.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.hpp"

namespace ss::ir {

// An attention node's layout, by letters: each of q, k, v and the output
// names its axes; `i` is the queries' axis, `j` the keys', `d` the one q and
// k contract, `e` the values' own. Every other letter is a batch letter
// (out has them all; an input without one is broadcast along it).
struct AttentionLayout {
  std::vector<std::string> q, k, v, out;
  std::string i, j, d, e;
  bool causal = false;  // key positions after the query's get nothing
  bool scaled = false;  // a scale input (in[3]) multiplies the scores...
  bool divide = false;  // ...or divides them
};
AttentionLayout attention_of(const Node& n);

// Rewrites every chain that computes attention (its intermediate values
// read by nothing else, float32 throughout, the scale a scalar made from
// constants and sizes, q, k and v of one type) into one attention node, in
// place: the chain's other nodes are left unread (drop_unused removes
// them). Loop bodies are rewritten too (made anew). Returns how many.
int fuse_attention(Graph& g);

}  // namespace ss::ir
