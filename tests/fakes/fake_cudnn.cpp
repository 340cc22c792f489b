// A stand-in cuDNN for kernels/cudnn's tests: the legacy convolution entry
// points it calls, computing on host memory (the stand-in driver's device
// memory is host memory too) by cuDNN's definitions: a cross-correlation
// of NHWC images with a KRSC (NHWC-format) filter, zero padding `pad` on
// both sides, y = alpha conv(x, w) + beta y, and the two gradients alike.
// Anything but float NHWC, or an output whose dims aren't cuDNN's own
// formula, is CUDNN_STATUS_BAD_PARAM, as a wrong call would be.
//
// Its heuristics offer, best first, an algorithm with tensor-core math
// (which may round to TF32 on a real GPU), one that wants 1 GiB of
// workspace, a nondeterministic one, then a deterministic one with the
// descriptor's math that needs 4 KiB (checked, and written over whole):
// ss_fake_cudnn_last_algo() says which ran, so a test sees f32,
// --deterministic and the workspace cap pass over the others.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fakes/fake_stream_wait.hpp"

namespace {

constexpr int kSuccess = 0, kBadParam = 2000;
constexpr int kFloat = 0, kNhwc = 1, kCrossCorrelation = 1, kDefaultMath = 0, kTensorOpMath = 1;
constexpr std::size_t kWorkspace = 4096, kHuge = std::size_t{1} << 30;

struct Handle {
  void* stream = nullptr;
};
struct Dims {
  int format = -1, type = -1, n = 0, c = 0, h = 0, w = 0;
};
struct Conv {
  int pad[2] = {0, 0}, stride[2] = {1, 1}, dilation[2] = {1, 1};
  int mode = -1, compute = -1, math = kDefaultMath;
};
struct Perf {  // cudnnConvolution*AlgoPerf_t
  int algo, status;
  float time;
  std::size_t memory;
  int determinism, math_type, reserved[3];
};
int g_last_algo = -1;

bool floats_nhwc(const Dims& d) {
  return d.format == kNhwc && d.type == kFloat && d.n > 0 && d.c > 0 && d.h > 0 && d.w > 0;
}

// x, w and y as one convolution: y's dims cuDNN's own (its
// cudnnGetConvolution2dForwardOutputDim).
bool chains(const Dims& x, const Dims& w, const Conv& c, const Dims& y) {
  if (!floats_nhwc(x) || !floats_nhwc(w) || !floats_nhwc(y) || c.mode != kCrossCorrelation ||
      c.compute != kFloat || w.c != x.c || y.n != x.n || y.c != w.n)
    return false;
  const int oh = (x.h + 2 * c.pad[0] - c.dilation[0] * (w.h - 1) - 1) / c.stride[0] + 1;
  const int ow = (x.w + 2 * c.pad[1] - c.dilation[1] * (w.w - 1) - 1) / c.stride[1] + 1;
  return y.h == oh && y.w == ow;
}

int offer(const Conv& c, int requested, int* returned, Perf* perf) {
  const Perf all[4] = {{5, kSuccess, 0.1f, 0, 1, kTensorOpMath, {}},
                       {0, kSuccess, 0.15f, kHuge, 1, c.math, {}},
                       {3, kSuccess, 0.2f, 0, 0, c.math, {}},
                       {1, kSuccess, 0.3f, kWorkspace, 1, c.math, {}}};
  *returned = requested < 4 ? requested : 4;
  for (int k = 0; k < *returned; ++k) perf[k] = all[k];
  return kSuccess;
}

std::size_t workspace_of(int algo) {
  return algo == 1 ? kWorkspace : algo == 0 ? kHuge : 0;
}

bool take_workspace(int algo, void* workspace, std::size_t bytes) {
  if (bytes < workspace_of(algo) || (workspace_of(algo) && !workspace)) return false;
  if (workspace) std::memset(workspace, 0x5a, workspace_of(algo));
  g_last_algo = algo;
  return true;
}

// Where window element (kh, kw) of output (oh, ow) lies in the image; -1
// in the padding.
long at(const Dims& x, const Conv& c, int n, int oh, int ow, int kh, int kw) {
  const int h = oh * c.stride[0] + kh * c.dilation[0] - c.pad[0];
  const int w = ow * c.stride[1] + kw * c.dilation[1] - c.pad[1];
  if (h < 0 || h >= x.h || w < 0 || w >= x.w) return -1;
  return ((static_cast<long>(n) * x.h + h) * x.w + w) * x.c;
}

// Each (image element, filter element, output element) the convolution
// multiplies, as flat indices into x, w and y.
template <typename F>
void each_product(const Dims& x, const Dims& w, const Conv& c, const Dims& y, F f) {
  for (int n = 0; n < y.n; ++n)
    for (int oh = 0; oh < y.h; ++oh)
      for (int ow = 0; ow < y.w; ++ow)
        for (int k = 0; k < y.c; ++k)
          for (int kh = 0; kh < w.h; ++kh)
            for (int kw = 0; kw < w.w; ++kw) {
              const long base = at(x, c, n, oh, ow, kh, kw);
              if (base < 0) continue;
              const long yi = ((static_cast<long>(n) * y.h + oh) * y.w + ow) * y.c + k;
              for (int ch = 0; ch < x.c; ++ch)
                f(base + ch, ((static_cast<long>(k) * w.h + kh) * w.w + kw) * w.c + ch, yi);
            }
}

long count(const Dims& d) {
  return static_cast<long>(d.n) * d.c * d.h * d.w;
}

// out = alpha sums + beta out, the sums in double.
void finish(const std::vector<double>& sums, const void* alpha, const void* beta, void* out) {
  const float a = *static_cast<const float*>(alpha), b = *static_cast<const float*>(beta);
  auto* o = static_cast<float*>(out);
  for (std::size_t i = 0; i < sums.size(); ++i)
    o[i] = static_cast<float>(a * sums[i] + (b != 0 ? b * o[i] : 0.0f));
}

}  // namespace

extern "C" {

std::size_t cudnnGetVersion() {
  return 90000;
}
int ss_fake_cudnn_last_algo() {
  return g_last_algo;
}
int cudnnCreate(void** handle) {
  *handle = new Handle;
  return kSuccess;
}
int cudnnDestroy(void* handle) {
  delete static_cast<Handle*>(handle);
  return kSuccess;
}
int cudnnSetStream(void* handle, void* stream) {
  static_cast<Handle*>(handle)->stream = stream;
  return kSuccess;
}
int cudnnCreateTensorDescriptor(void** d) {
  *d = new Dims;
  return kSuccess;
}
int cudnnDestroyTensorDescriptor(void* d) {
  delete static_cast<Dims*>(d);
  return kSuccess;
}
int cudnnSetTensor4dDescriptor(void* d, int format, int type, int n, int c, int h, int w) {
  *static_cast<Dims*>(d) = {format, type, n, c, h, w};
  return kSuccess;
}
int cudnnCreateFilterDescriptor(void** d) {
  *d = new Dims;
  return kSuccess;
}
int cudnnDestroyFilterDescriptor(void* d) {
  delete static_cast<Dims*>(d);
  return kSuccess;
}
int cudnnSetFilter4dDescriptor(void* d, int type, int format, int k, int c, int h, int w) {
  *static_cast<Dims*>(d) = {format, type, k, c, h, w};
  return kSuccess;
}
int cudnnCreateConvolutionDescriptor(void** d) {
  *d = new Conv;
  return kSuccess;
}
int cudnnDestroyConvolutionDescriptor(void* d) {
  delete static_cast<Conv*>(d);
  return kSuccess;
}
int cudnnSetConvolution2dDescriptor(void* d, int pad_h, int pad_w, int u, int v, int dilation_h,
                                    int dilation_w, int mode, int compute) {
  if (pad_h < 0 || pad_w < 0 || u < 1 || v < 1 || dilation_h < 1 || dilation_w < 1)
    return kBadParam;
  auto& c = *static_cast<Conv*>(d);
  c = {{pad_h, pad_w}, {u, v}, {dilation_h, dilation_w}, mode, compute, c.math};
  return kSuccess;
}
int cudnnSetConvolutionMathType(void* d, int math) {
  static_cast<Conv*>(d)->math = math;
  return kSuccess;
}

int cudnnGetConvolutionForwardAlgorithm_v7(void*, void* x, void* w, void* c, void* y, int requested,
                                           int* returned, Perf* perf) {
  if (!chains(*static_cast<Dims*>(x), *static_cast<Dims*>(w), *static_cast<Conv*>(c),
              *static_cast<Dims*>(y)))
    return kBadParam;
  return offer(*static_cast<Conv*>(c), requested, returned, perf);
}
int cudnnGetConvolutionBackwardDataAlgorithm_v7(void*, void* w, void* dy, void* c, void* dx,
                                                int requested, int* returned, Perf* perf) {
  return cudnnGetConvolutionForwardAlgorithm_v7(nullptr, dx, w, c, dy, requested, returned, perf);
}
int cudnnGetConvolutionBackwardFilterAlgorithm_v7(void*, void* x, void* dy, void* c, void* dw,
                                                  int requested, int* returned, Perf* perf) {
  return cudnnGetConvolutionForwardAlgorithm_v7(nullptr, x, dw, c, dy, requested, returned, perf);
}
int cudnnGetConvolutionForwardWorkspaceSize(void*, void*, void*, void*, void*, int algo,
                                            std::size_t* bytes) {
  *bytes = workspace_of(algo);
  return kSuccess;
}
int cudnnGetConvolutionBackwardDataWorkspaceSize(void*, void*, void*, void*, void*, int algo,
                                                 std::size_t* bytes) {
  *bytes = workspace_of(algo);
  return kSuccess;
}
int cudnnGetConvolutionBackwardFilterWorkspaceSize(void*, void*, void*, void*, void*, int algo,
                                                   std::size_t* bytes) {
  *bytes = workspace_of(algo);
  return kSuccess;
}

int cudnnConvolutionForward(void* handle, const void* alpha, void* xd, const void* x, void* wd,
                            const void* w, void* cd, int algo, void* workspace, std::size_t bytes,
                            const void* beta, void* yd, void* y) {
  const auto &dx = *static_cast<Dims*>(xd), &dw = *static_cast<Dims*>(wd),
             &dy = *static_cast<Dims*>(yd);
  const auto& c = *static_cast<Conv*>(cd);
  if (!chains(dx, dw, c, dy) || !ss_fake::wait_for_stream(static_cast<Handle*>(handle)->stream) ||
      !take_workspace(algo, workspace, bytes))
    return kBadParam;
  std::vector<double> sums(static_cast<std::size_t>(count(dy)), 0.0);
  const auto *px = static_cast<const float*>(x), *pw = static_cast<const float*>(w);
  each_product(dx, dw, c, dy, [&](long xi, long wi, long yi) {
    sums[static_cast<std::size_t>(yi)] += static_cast<double>(px[xi]) * pw[wi];
  });
  finish(sums, alpha, beta, y);
  return kSuccess;
}
int cudnnConvolutionBackwardData(void* handle, const void* alpha, void* wd, const void* w,
                                 void* dyd, const void* dy, void* cd, int algo, void* workspace,
                                 std::size_t bytes, const void* beta, void* dxd, void* dx) {
  const auto &x = *static_cast<Dims*>(dxd), &k = *static_cast<Dims*>(wd),
             &y = *static_cast<Dims*>(dyd);
  const auto& c = *static_cast<Conv*>(cd);
  if (!chains(x, k, c, y) || !ss_fake::wait_for_stream(static_cast<Handle*>(handle)->stream) ||
      !take_workspace(algo, workspace, bytes))
    return kBadParam;
  std::vector<double> sums(static_cast<std::size_t>(count(x)), 0.0);
  const auto *pw = static_cast<const float*>(w), *pdy = static_cast<const float*>(dy);
  each_product(x, k, c, y, [&](long xi, long wi, long yi) {
    sums[static_cast<std::size_t>(xi)] += static_cast<double>(pdy[yi]) * pw[wi];
  });
  finish(sums, alpha, beta, dx);
  return kSuccess;
}
int cudnnConvolutionBackwardFilter(void* handle, const void* alpha, void* xd, const void* x,
                                   void* dyd, const void* dy, void* cd, int algo, void* workspace,
                                   std::size_t bytes, const void* beta, void* dwd, void* dw) {
  const auto &xs = *static_cast<Dims*>(xd), &k = *static_cast<Dims*>(dwd),
             &y = *static_cast<Dims*>(dyd);
  const auto& c = *static_cast<Conv*>(cd);
  if (!chains(xs, k, c, y) || !ss_fake::wait_for_stream(static_cast<Handle*>(handle)->stream) ||
      !take_workspace(algo, workspace, bytes))
    return kBadParam;
  std::vector<double> sums(static_cast<std::size_t>(count(k)), 0.0);
  const auto *px = static_cast<const float*>(x), *pdy = static_cast<const float*>(dy);
  each_product(xs, k, c, y, [&](long xi, long wi, long yi) {
    sums[static_cast<std::size_t>(wi)] += static_cast<double>(px[xi]) * pdy[yi];
  });
  finish(sums, alpha, beta, dw);
  return kSuccess;
}

}  // extern "C"
