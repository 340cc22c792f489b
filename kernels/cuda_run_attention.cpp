// An attention node and its gradient as the fused kernels
// (cuda_attention.cuh): one launch forward, two backward.
#include <algorithm>

#include "kernels/cuda_attention.hpp"
#include "kernels/cuda_graph_run.hpp"

namespace ss::cuda::detail {

bool GraphRun::attention(std::size_t i, const ir::Node& n) {
  if (!runtime::fast::attn::attention_kernel_on()) return false;
  const bool grads = n.op == ir::Op::attention_grad;
  const std::size_t operands = n.in.size();
  const DTensor &q = in(n, 0), &k = in(n, 1), &v = in(n, 2);
  const DTensor* scale = operands == (grads ? 5u : 4u) ? &in(n, 3) : nullptr;
  if (scale && (scale->dtype() != DType::f32 || scale->size() != 1)) return false;
  runtime::fast::attn::Bound b;
  if (!b.bind(n, q.view, k.view, v.view)) return false;
  const DTensor* dout = grads ? &in(n, operands - 1) : nullptr;
  if (dout && !b.bind_grads(q.view, k.view, v.view, dout->view)) return false;
  const auto launch = attention_launch(b);
  if (!launch) return false;
  const AttentionArgs& a = launch->args;
  const CUdeviceptr factor = scale ? scale->at() : CUdeviceptr{0};
  const auto blocks = [](long long rows) {
    return static_cast<unsigned>((rows + kAttentionRows - 1) / kAttentionRows);
  };
  const auto gy = static_cast<unsigned>(std::min<long long>(a.positions, 65535));
  const auto kernel = [&](AttentionKernel which) {
    return gpu_.kernel(attention_source(which, launch->width),
                       attention_kernel_name(which, launch->width));
  };
  if (!grads) {
    DTensor out = make(i, DType::f32, b.out_shape);
    if (a.positions > 0) {
      Params p;
      p.add(q.at()).add(k.at()).add(v.at()).add(factor).add(out.at()).add(a);
      gpu_.launch_grid(kernel(AttentionKernel::forward), blocks(a.ti), gy, 1, kAttentionRows, 1, p);
    }
    values_[i] = std::move(out);
    return true;
  }
  Shape shape = q.shape();
  shape.insert(shape.begin(), 3);
  DTensor out = make(i, DType::f32, shape);
  if (a.positions > 0) {
    // Each query row's log-sum and dout . out, for the keys' half, then a
    // flag per position: a row that isn't finite (cuda_attention.cuh).
    const std::int64_t rows = a.positions * a.ti * 2;
    const DTensor stats = allocate(DType::f32, {rows + a.positions}, what(i));
    gpu_.set_bytes(stats.at() + static_cast<CUdeviceptr>(rows * 4), 0,
                   static_cast<std::size_t>(a.positions) * 4);
    const CUdeviceptr dq = out.at(), dk = dq + static_cast<CUdeviceptr>(b.part_size * 4),
                      dv = dk + static_cast<CUdeviceptr>(b.part_size * 4);
    Params first;
    first.add(q.at()).add(k.at()).add(v.at()).add(factor).add(dout->at()).add(dq).add(stats.at());
    first.add(a);
    gpu_.launch_grid(kernel(AttentionKernel::dq), blocks(a.ti), gy, 1, kAttentionRows, 1, first);
    Params second;
    second.add(q.at()).add(k.at()).add(v.at()).add(factor).add(dout->at()).add(stats.at());
    second.add(dk).add(dv).add(a);
    gpu_.launch_grid(kernel(AttentionKernel::dkv), blocks(a.tj), gy, 1, kAttentionRows, 1, second);
  }
  values_[i] = std::move(out);
  return true;
}

}  // namespace ss::cuda::detail
