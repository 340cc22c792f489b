// The forms the language writes attention in (ir/attention.hpp's chain):
// scaled by a multiply on either side or a divide, or not; causal or not;
// heads before or after the positions; the einsums' operands in either
// order; one tensor for q, k and v; and chains that aren't attention. The
// CPU's (tests/runtime/attention_test.cpp) and CUDA's
// (tests/kernels/cuda_attention_test.cpp) attention tests run them all.
#pragma once

#include <string>

#include "ir/graph.hpp"

namespace ss::test {

struct AttentionForm {
  const char* name;
  const char* body;  // the lines of `fn t(q: [b H T K], k: ..., v: ..., r: [b H T K]) -> []`
  bool fused = true;
  const char* head = "dim H = 2\ndim T = 70\ndim K = 8\n";
  const char* params = "q: [b H T K], k: [b H T K], v: [b H T K], r: [b H T K]";
};

inline const AttentionForm kAttentionForms[] = {
    {"causal, divided (the tinylm form)",
     "    s = einsum(q, k, b h i d, b h j d -> b h i j) / sqrt(f32(K))\n"
     "    w = softmax(causal(s), over=-1)\n"
     "    return sum(einsum(w, v, b h i j, b h j d -> b h i d) * r)\n"},
    {"multiplied on the right, not causal",
     "    w = softmax(einsum(q, k, b h i d, b h j d -> b h i j) * 0.3, over=-1)\n"
     "    return sum(einsum(w, v, b h i j, b h j d -> b h i d) * r)\n"},
    {"multiplied on the left",
     "    w = softmax(0.3 * einsum(q, k, b h i d, b h j d -> b h i j), over=3)\n"
     "    return sum(einsum(w, v, b h i j, b h j d -> b h i d) * r)\n"},
    {"not scaled, causal",
     "    w = softmax(causal(einsum(q, k, b h i d, b h j d -> b h i j)), over=-1)\n"
     "    return sum(einsum(w, v, b h i j, b h j d -> b h i d) * r)\n"},
    {"keys first, weights second",
     "    s = einsum(k, q, b h j d, b h i d -> b h i j) / 2.0\n"
     "    w = softmax(causal(s), over=-1)\n"
     "    return sum(einsum(v, w, b h j d, b h i j -> b h i d) * r)\n"},
    {"heads after the positions, [b T H K], causal",
     "    s = einsum(q, k, b i h d, b j h d -> b h i j) * 0.35\n"
     "    w = softmax(causal(s), over=-1)\n"
     "    return sum(einsum(w, v, b h i j, b j h d -> b i h d) * r)\n",
     true, "dim H = 3\ndim T = 19\ndim K = 5\n",
     "q: [b T H K], k: [b T H K], v: [b T H K], r: [b T H K]"},
    {"the scores [b i h j], softmax over j, not causal",
     "    s = einsum(q, k, b h i d, b h j d -> b i h j) * 0.35\n"
     "    w = softmax(s, over=3)\n"
     "    return sum(einsum(w, v, b i h j, b h j d -> b h i d) * r)\n"},
    {"one tensor for q, k and v (self-attention of x)",
     "    w = softmax(causal(einsum(q, q, b h i d, b h j d -> b h i j)) / 3.0, over=-1)\n"
     "    return sum(einsum(w, q, b h i j, b h j d -> b h i d) * r + k * v)\n",
     false},  // the divide comes after causal: not the chain (softmax(causal(s * c)) is)
    {"one tensor for q, k and v, causal after the scale",
     "    w = softmax(causal(einsum(q, q, b h i d, b h j d -> b h i j) / 3.0), over=-1)\n"
     "    return sum(einsum(w, q, b h i j, b h j d -> b h i d) * r + k * v)\n"},
    {"the weights read again: left as written",
     "    w = softmax(einsum(q, k, b h i d, b h j d -> b h i j) * 0.3, over=-1)\n"
     "    return sum(einsum(w, v, b h i j, b h j d -> b h i d) * r) + sum(w)\n",
     false},
    {"a scale made from the inputs: left as written",
     "    w = softmax(einsum(q, k, b h i d, b h j d -> b h i j) * (mean(r) + 0.3), over=-1)\n"
     "    return sum(einsum(w, v, b h i j, b h j d -> b h i d) * r)\n",
     false},
    {"softmax over the queries: not attention",
     "    w = softmax(einsum(q, k, b h i d, b h j d -> b h i j) * 0.3, over=2)\n"
     "    return sum(einsum(w, v, b h i j, b h j d -> b h i d) * r)\n",
     false},
};

// Heads for kAttentionForms[0] (causal, divided) that the CUDA kernels
// hold 64 and 128 wide (the forms above are 32).
inline const char* const kWideAttentionHeads[] = {"dim H = 1\ndim T = 33\ndim K = 40\n",
                                                  "dim H = 1\ndim T = 20\ndim K = 100\n"};

// A form's program: one function `t`, its loss a sum.
inline std::string attention_program(const AttentionForm& f) {
  return std::string(f.head) + "fn t(" + f.params + ") -> []:\n" + f.body;
}

// The nodes of `op` in a graph and its loops' bodies (not inside fused
// nodes' bodies).
int count_ops(const ir::Graph& g, ir::Op op);

// Node `n` of a graph alone in a graph of its own, its operands the inputs
// in0, in1, ... (for running one attention node on its own).
ir::Graph node_alone(const ir::Graph& g, const ir::Node& n);

}  // namespace ss::test
