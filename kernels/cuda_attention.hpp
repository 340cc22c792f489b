// The fused attention kernels' host side (their CUDA C: cuda_attention.cuh):
// the arguments they take, bound from an attention node's operands
// (runtime/fast/attention/attention_bind.hpp), and the source of each.
#pragma once

#include <optional>
#include <string>

#include "runtime/fast/attention/attention_bind.hpp"

namespace ss::cuda {

// Rows a block (a thread each) and the head widths the kernels hold in
// registers; a head wider than the last is left to the composition.
inline constexpr int kAttentionRows = 64;
inline constexpr int kAttentionWidths[] = {32, 64, 128};
inline constexpr int kAttentionBatches = 8;

// cuda_attention.cuh's SsAttentionArgs, field for field (its test checks
// the two agree).
struct AttentionArgs {
  long long ti = 0, tj = 0, d = 0, e = 0, positions = 0;
  long long q_i = 0, q_d = 0, k_j = 0, k_d = 0, v_j = 0, v_e = 0, o_i = 0, o_e = 0;
  long long gq_i = 0, gq_d = 0, gk_j = 0, gk_d = 0, gv_j = 0, gv_e = 0;
  long long size[kAttentionBatches] = {};
  long long q_b[kAttentionBatches] = {}, k_b[kAttentionBatches] = {}, v_b[kAttentionBatches] = {},
            o_b[kAttentionBatches] = {}, gq_b[kAttentionBatches] = {}, gk_b[kAttentionBatches] = {},
            gv_b[kAttentionBatches] = {};
  int batches = 0, causal = 0, divide = 0, unused = 0;
};

// A bound node's arguments (the gradient's too, once bind_grads has run;
// o_* is dout's then), and the narrowest width that holds its head;
// nullopt for more batch letters than the kernels take, a head past 128,
// or no rows or keys.
struct AttentionLaunch {
  AttentionArgs args;
  int width = 0;
};
std::optional<AttentionLaunch> attention_launch(const runtime::fast::attn::Bound& b);

enum class AttentionKernel { forward, dq, dkv };
// The kernel's name (`ss_attention_forward_64`) and its source: the .cuh
// with that one entry point (width one of kAttentionWidths).
std::string attention_kernel_name(AttentionKernel kernel, int width);
const std::string& attention_source(AttentionKernel kernel, int width);
// cuda_attention.cuh as it is (embedded at build time).
const char* attention_kernels_text();

}  // namespace ss::cuda
