#include "kernels/cuda_attention.hpp"

#include <map>
#include <utility>

namespace ss::cuda {

namespace attn = runtime::fast::attn;

std::optional<AttentionLaunch> attention_launch(const attn::Bound& b) {
  const attn::Item& s = b.item;
  if (b.batch.size() > static_cast<std::size_t>(kAttentionBatches) || s.ti <= 0 || s.tj <= 0 ||
      s.d <= 0 || s.e <= 0)
    return std::nullopt;
  AttentionLaunch out;
  for (const int w : kAttentionWidths)
    if (!out.width && s.d <= w && s.e <= w) out.width = w;
  if (!out.width) return std::nullopt;
  AttentionArgs& a = out.args;
  a.ti = s.ti;
  a.tj = s.tj;
  a.d = s.d;
  a.e = s.e;
  a.positions = b.positions();
  a.q_i = s.q_i;
  a.q_d = s.q_d;
  a.k_j = s.k_j;
  a.k_d = s.k_d;
  a.v_j = s.v_j;
  a.v_e = s.v_e;
  a.o_i = s.o_i;
  a.o_e = s.o_e;
  a.gq_i = s.gq_i;
  a.gq_d = s.gq_d;
  a.gk_j = s.gk_j;
  a.gk_d = s.gk_d;
  a.gv_j = s.gv_j;
  a.gv_e = s.gv_e;
  for (std::size_t k = 0; k < b.batch.size(); ++k) {
    const std::string& x = b.batch[k];
    a.size[k] = b.size.at(x);
    a.q_b[k] = attn::stride_at(b.q, x);
    a.k_b[k] = attn::stride_at(b.k, x);
    a.v_b[k] = attn::stride_at(b.v, x);
    a.o_b[k] = attn::stride_at(b.o, x);  // the output's, or dout's
    a.gq_b[k] = attn::stride_at(b.gq, x);
    a.gk_b[k] = attn::stride_at(b.gk, x);
    a.gv_b[k] = attn::stride_at(b.gv, x);
  }
  a.batches = static_cast<int>(b.batch.size());
  a.causal = s.causal ? 1 : 0;
  a.divide = b.l.divide ? 1 : 0;
  return out;
}

namespace {
const char* stem(AttentionKernel kernel) {
  switch (kernel) {
    case AttentionKernel::forward:
      return "forward";
    case AttentionKernel::dq:
      return "dq";
    case AttentionKernel::dkv:
      return "dkv";
  }
  return "";
}
}  // namespace

std::string attention_kernel_name(AttentionKernel kernel, int width) {
  return std::string("ss_attention_") + stem(kernel) + "_" + std::to_string(width);
}

const std::string& attention_source(AttentionKernel kernel, int width) {
  // Made once: a launch looks its kernel up by this text.
  static const auto sources = [] {
    std::map<std::pair<AttentionKernel, int>, std::string> made;
    for (const auto k : {AttentionKernel::forward, AttentionKernel::dq, AttentionKernel::dkv})
      for (const int w : kAttentionWidths) {
        std::string entry = "SS_ATTENTION_";
        for (const char* c = stem(k); *c; ++c) entry += static_cast<char>(*c - 'a' + 'A');
        made[{k, w}] =
            std::string(attention_kernels_text()) + entry + "(" + std::to_string(w) + ")\n";
      }
    return made;
  }();
  return sources.at({kernel, width});
}

}  // namespace ss::cuda
