// A convolution's passes on cuDNN (kernels/cudnn.hpp), as
// kernels/cuda_conv_match finds them: the plan leaves the window (and the
// input gradient's einsum) unmade, so cuDNN reads the images in place;
// where it can't run a pass, the window is made after all and the GEMM
// runs as before.
#include "kernels/cuda_conv_match.hpp"
#include "kernels/cuda_graph_run.hpp"

namespace ss::cuda::detail {
namespace {

const char* pass_name(Cudnn::Pass pass) {
  return pass == Cudnn::Pass::forward ? "forward pass"
         : pass == Cudnn::Pass::data  ? "input gradient"
                                      : "kernel gradient";
}

}  // namespace

void GraphRun::make_deferred(int v) {
  if (unmade(v)) node(static_cast<std::size_t>(v));
}

bool GraphRun::conv_on_cudnn(std::size_t i, const ir::Node& n) {
  if (!cudnn_ || n.in.size() != 2) return false;
  const bool reads_unmade =
      n.op == ir::Op::window_fold ? unmade(n.in[0]) : unmade(n.in[0]) || unmade(n.in[1]);
  if (!reads_unmade) return false;
  const auto call =
      match_conv(g_, i, [&](int v) { return values_[static_cast<std::size_t>(v)].shape(); });
  if (!call) return false;
  const DTensor &a0 = values_[static_cast<std::size_t>(call->a)],
                &b0 = values_[static_cast<std::size_t>(call->b)];
  if (a0.dtype() != DType::f32 || b0.dtype() != DType::f32) return false;
  const DTensor a = compact(a0.with(a0.view.permute(call->a_order))),
                b = compact(b0.with(b0.view.permute(call->b_order)));
  DTensor out = make(i, DType::f32, call->out_shape);
  if (!cudnn_pass(call->pass, call->shape, a, b, out)) return false;
  values_[i] = call->out_order.empty() ? out : compact(out.with(out.view.permute(call->out_order)));
  return true;
}

bool GraphRun::cudnn_pass(Cudnn::Pass pass, const ConvShape& s, const DTensor& a, const DTensor& b,
                          const DTensor& out) {
  // Aligned as its algorithms need: the allocator's 256 bytes; a view into
  // a value may not be.
  for (const DTensor* t : {&a, &b, &out})
    if (t->at() % 16 != 0) return false;
  DTensor space;
  const auto workspace = [&](std::size_t bytes) {
    space = allocate(DType::f32, {static_cast<std::int64_t>((bytes + 3) / 4)}, "cuDNN's workspace");
    return space.at();
  };
  const auto status =
      gpu_.dnn()->run(pass, s, precision_, deterministic_, a.at(), b.at(), out.at(), workspace);
  if (status == cudnn_abi::kNotSupported) return false;
  if (status != cudnn_abi::kSuccess)
    throw runtime::DeviceError(diag::Code::E1910,
                               std::string("cuDNN's convolution ") + pass_name(pass) +
                                   " failed with status " + std::to_string(status) + " on " +
                                   gpu_.name(),
                               "a cuDNN that matches the driver avoids it; "
                               "SHAPESCRIPT_CUDNN=0 runs it as a window and a GEMM");
  return true;
}

}  // namespace ss::cuda::detail
