// What the attention kernels of each instruction set share: one batch
// position's sizes and strides, the thread's scratch, and the entry points
// attention_kernel.inc defines per instruction set.
#pragma once

#include <cstdint>
#include <vector>

namespace ss::runtime::fast::attn {

// One batch position: q [i d], k [j d], v [j e], out [i e], and the
// gradients' places, each by its element strides.
struct Item {
  std::int64_t ti = 0, tj = 0, d = 0, e = 0;
  std::int64_t q_i = 0, q_d = 0, k_j = 0, k_d = 0, v_j = 0, v_e = 0, o_i = 0, o_e = 0;
  std::int64_t gq_i = 0, gq_d = 0, gk_j = 0, gk_d = 0, gv_j = 0, gv_e = 0;
  bool causal = false;
  float factor = 1;  // the scores' scale (1 / the divisor for a divide)
  // Numerics::portable: exps and their sums as runtime/fast/portable's
  // (the same bits on every kernel; the products are FMA chains in all).
  bool portable = false;
};

// A thread's buffers, kept between calls: the position's keys and values
// packed ([d][j], [j][d], [e][j], [j][e]), its dk and dv sums, a block of
// query rows and their output gradients, scores or probabilities and their
// gradients, and the rows' accumulators.
struct Scratch {
  std::vector<float> kt, kp, vt, vp, dk, dv, row, grad_row, s, dp, acc;
};

// False where a row's largest score isn't finite (infinite inputs) or a
// row has no key: the caller leaves those to the composition.
using Forward = bool (*)(const Item&, const float* q, const float* k, const float* v, float* out,
                         Scratch&);
using Backward = bool (*)(const Item&, const float* q, const float* k, const float* v,
                          const float* dout, float* dq, float* dk, float* dv, Scratch&);

bool forward_avx512(const Item&, const float*, const float*, const float*, float*, Scratch&);
bool forward_avx2(const Item&, const float*, const float*, const float*, float*, Scratch&);
bool forward_portable(const Item&, const float*, const float*, const float*, float*, Scratch&);
bool forward_fma4(const Item&, const float*, const float*, const float*, float*, Scratch&);
bool backward_avx512(const Item&, const float*, const float*, const float*, const float*, float*,
                     float*, float*, Scratch&);
bool backward_avx2(const Item&, const float*, const float*, const float*, const float*, float*,
                   float*, float*, Scratch&);
bool backward_portable(const Item&, const float*, const float*, const float*, const float*, float*,
                       float*, float*, Scratch&);
bool backward_fma4(const Item&, const float*, const float*, const float*, const float*, float*,
                   float*, float*, Scratch&);

}  // namespace ss::runtime::fast::attn
