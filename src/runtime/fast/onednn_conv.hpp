// A convolution's forward pass through oneDNN's direct convolution, where
// libdnnl is on the machine: opened at run time (libdnnl.so.2), so a
// machine without it runs our own im2col GEMM (fast::windowed_einsum) as
// before. Measured beside ours on the conv layer [8 32 32] 64->64 3x3, one
// thread: oneDNN's brgconv/jit kernels in their blocked weight layout run
// about twice as fast as our im2col; with our layouts fixed it picks its
// own im2col GEMM, no faster than ours (bench/README.md). So the weights
// are reordered into the layout it chooses, the images read and the result
// written in place, channels last.
//
// oneDNN's Debian build runs its loops on OpenMP: each part of a call runs
// on one of the engine's workers as one OpenMP thread (omp_set_num_threads(1)
// there), images split between the parts, so no OpenMP pool runs beside
// our threads in the host's process.
#pragma once

#include <cstdint>
#include <string>

#include "ir/conv_epilogue.hpp"
#include "runtime/core/tensor.hpp"
#include "runtime/fast/gemm/sgemm.hpp"

namespace ss::runtime::fast {

// y [n oh ow f] = the 2-D convolution of x [n h w c] (channels last, rows
// w * c apart) with a kernel (ConvKernel below), zero padding. dilation 1
// is no gap.
struct ConvForward {
  std::int64_t n, h, w, c, f;
  std::int64_t kh, kw, oh, ow;
  std::int64_t stride[2], dilation[2], before[2], after[2];
  // c and f split into this many groups, each group's f / groups outputs
  // from its c / groups inputs (a depthwise convolution: groups == c).
  std::int64_t groups = 1;
  // Its products from inputs rounded to bfloat16, summed in float32
  // (EngineOptions::precision bf16: the forward's images and kernel as
  // bfloat16 memory, AMX tiles where the CPU has them); the caller's images
  // and outputs stay float32.
  bool bf16 = false;
};

// A convolution's kernel as the forward and the input's gradient read it:
// element (c, kh, kw, f) (c counted within f's group) at data[f * f_stride + c * c_stride + kh *
// kh_stride + kw * kw_stride] (any strides: [kh kw c f] as the language
// lays a kernel out, read as einsum's rows (c, kh, kw), needs no copy).
// `frozen`, where the kernel lies in a frozen buffer (a resident model's
// weight), keeps oneDNN's reordered copy of it, made at the first call.
struct ConvKernel {
  const float* data = nullptr;
  std::int64_t f_stride = 0, c_stride = 0, kh_stride = 0, kw_stride = 0;
  const Buffer* frozen = nullptr;
};

// The kernel as einsum's matrix: rows (c, kh, kw), columns f.
ConvKernel conv_kernel(const ConvForward& s, gemm::Matrix kernel);

// What a forward adds to each output as it stores it (a layer's
// elementwise tail, ir/conv_epilogue.hpp): a bias per f, then ReLU or a
// clip to [lo, hi].
struct ConvPostOps {
  using Activation = ir::ConvEpilogue::Activation;  // the plan's, as found
  const float* bias = nullptr;                      // [f], or none
  Activation activation = Activation::none;
  float lo = 0, hi = 0;
};

// Runs it on oneDNN over `threads` parts; false, having written nothing,
// where oneDNN can't: not on this machine, turned off (SHAPESCRIPT_ONEDNN=0),
// under ThreadSanitizer (libgomp isn't instrumented), or a shape it refuses.
bool onednn_conv_forward(const ConvForward& s, const float* x, const ConvKernel& kernel, float* y,
                         int threads, const ConvPostOps& post = {});
// The kernel's gradient dk [f c kh kw] (einsum's rows f, columns (c, kh,
// kw)) from x [n h w c] and the output's gradient dy [n oh ow f], both
// contiguous; its parts' sums added in order. False as above.
bool onednn_conv_kernel_gradient(const ConvForward& s, const float* x, const float* dy, float* dk,
                                 int threads);
// The input's gradient dx [n h w c] from dy [n oh ow f] (contiguous) and
// the kernel as onednn_conv_forward reads it. False as above.
bool onednn_conv_data_gradient(const ConvForward& s, const float* dy, const ConvKernel& kernel,
                               float* dx, int threads);

// "brgconv:avx512_core" or the like where oneDNN is usable, else why not
// ("not found: ..."); and how many calls of the three passes have run (for
// the tests).
const char* onednn_status();
std::int64_t onednn_conv_calls();
// The library's file and version ("2.6.3"), where it opened; else "".
std::string onednn_path();
std::string onednn_version();

}  // namespace ss::runtime::fast
