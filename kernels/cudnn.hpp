// cuDNN, opened at run time beside cuBLAS, for 2-D convolutions: the
// forward pass and both gradients (the input's and the kernel's) through
// its legacy convolution API (cudnnConvolutionForward, ...BackwardData,
// ...BackwardFilter), channels last. Without it a convolution is its
// window and a cuBLAS GEMM, as the language defines it.
//
// The precision policy picks the math: f32 is CUDNN_FMA_MATH (no TF32
// down-conversion, which cuDNN's default allows on Ampere and later),
// tf32 its default math. bf16 isn't offered here (cuDNN's float
// convolutions have no bf16 rounding of float inputs): the window and a
// bf16 GEMM run instead. Under --deterministic only algorithms cuDNN
// marks deterministic are taken (its backward passes may add with
// atomics otherwise), and none that wants more than 256 MiB of workspace.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "kernels/cuda_api.hpp"
#include "shapescript/options.hpp"
#include "support/dynamic_library.hpp"

namespace ss::cuda {

// cudnn*.h's values (tests/toolchain compares them with the headers).
namespace cudnn_abi {
using Handle = void*;      // cudnnHandle_t
using TensorDesc = void*;  // cudnnTensorDescriptor_t
using FilterDesc = void*;  // cudnnFilterDescriptor_t
using ConvDesc = void*;    // cudnnConvolutionDescriptor_t
using Status = int;
struct AlgoPerf {  // cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t
  int algo;
  Status status;
  float time;
  std::size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};
inline constexpr Status kSuccess = 0;
inline constexpr Status kNotSupported = 3000;  // CUDNN_STATUS_NOT_SUPPORTED
inline constexpr int kDataFloat = 0;           // CUDNN_DATA_FLOAT
inline constexpr int kTensorNhwc = 1;          // CUDNN_TENSOR_NHWC
inline constexpr int kCrossCorrelation = 1;    // CUDNN_CROSS_CORRELATION
inline constexpr int kDefaultMath = 0;         // CUDNN_DEFAULT_MATH
inline constexpr int kTensorOpMath = 1;        // CUDNN_TENSOR_OP_MATH
inline constexpr int kFmaMath = 3;             // CUDNN_FMA_MATH
inline constexpr int kDeterministic = 1;       // CUDNN_DETERMINISTIC
using GetVersion_t = std::size_t (*)();
using Create_t = Status (*)(Handle*);
using Destroy_t = Status (*)(Handle);
using SetStream_t = Status (*)(Handle, CUstream);
using CreateTensor_t = Status (*)(TensorDesc*);
using DestroyTensor_t = Status (*)(TensorDesc);
using SetTensor4d_t = Status (*)(TensorDesc, int format, int type, int n, int c, int h, int w);
using CreateFilter_t = Status (*)(FilterDesc*);
using DestroyFilter_t = Status (*)(FilterDesc);
using SetFilter4d_t = Status (*)(FilterDesc, int type, int format, int k, int c, int h, int w);
using CreateConv_t = Status (*)(ConvDesc*);
using DestroyConv_t = Status (*)(ConvDesc);
using SetConv2d_t = Status (*)(ConvDesc, int pad_h, int pad_w, int u, int v, int dilation_h,
                               int dilation_w, int mode, int compute_type);
using SetMathType_t = Status (*)(ConvDesc, int math_type);
// The three passes' heuristics, workspace sizes and calls. Each takes its
// descriptors in the order the header gives.
using ForwardAlgorithm_t = Status (*)(Handle, TensorDesc x, FilterDesc w, ConvDesc, TensorDesc y,
                                      int requested, int* returned, AlgoPerf*);
using ForwardWorkspace_t = Status (*)(Handle, TensorDesc x, FilterDesc w, ConvDesc, TensorDesc y,
                                      int algo, std::size_t* bytes);
using Forward_t = Status (*)(Handle, const void* alpha, TensorDesc x, const void* xp, FilterDesc w,
                             const void* wp, ConvDesc, int algo, void* workspace,
                             std::size_t workspace_bytes, const void* beta, TensorDesc y, void* yp);
using DataAlgorithm_t = Status (*)(Handle, FilterDesc w, TensorDesc dy, ConvDesc, TensorDesc dx,
                                   int requested, int* returned, AlgoPerf*);
using DataWorkspace_t = Status (*)(Handle, FilterDesc w, TensorDesc dy, ConvDesc, TensorDesc dx,
                                   int algo, std::size_t* bytes);
using Data_t = Status (*)(Handle, const void* alpha, FilterDesc w, const void* wp, TensorDesc dy,
                          const void* dyp, ConvDesc, int algo, void* workspace,
                          std::size_t workspace_bytes, const void* beta, TensorDesc dx, void* dxp);
using FilterAlgorithm_t = Status (*)(Handle, TensorDesc x, TensorDesc dy, ConvDesc, FilterDesc dw,
                                     int requested, int* returned, AlgoPerf*);
using FilterWorkspace_t = Status (*)(Handle, TensorDesc x, TensorDesc dy, ConvDesc, FilterDesc dw,
                                     int algo, std::size_t* bytes);
using Filter_t = Status (*)(Handle, const void* alpha, TensorDesc x, const void* xp, TensorDesc dy,
                            const void* dyp, ConvDesc, int algo, void* workspace,
                            std::size_t workspace_bytes, const void* beta, FilterDesc dw,
                            void* dwp);
}  // namespace cudnn_abi

// A 2-D convolution, channels last: images x [n h w c], kernel w [f kh kw
// c] (cuDNN's KRSC, its NHWC filter), output y [n oh ow f], all compact;
// zero padding `pad` on both sides of each axis (cuDNN pads alike).
struct ConvShape {
  std::int64_t n = 0, h = 0, w = 0, c = 0, f = 0, kh = 0, kw = 0, oh = 0, ow = 0;
  std::int64_t stride[2] = {1, 1}, dilation[2] = {1, 1}, pad[2] = {0, 0};
  auto key() const {
    return std::make_tuple(n, h, w, c, f, kh, kw, oh, ow, stride[0], stride[1], dilation[0],
                           dilation[1], pad[0], pad[1]);
  }
};

class Cudnn {
 public:
  enum class Pass { forward, data, filter };
  // `path` empty: the toolkit's library (cudnn_candidates). Null, with
  // *why (where `why` isn't null), when it can't be loaded or a handle
  // can't be made (the caller's context must be current). It runs on
  // `stream`.
  static std::unique_ptr<Cudnn> open(const std::string& path, CUstream stream, std::string* why);
  ~Cudnn();
  Cudnn(const Cudnn&) = delete;
  Cudnn& operator=(const Cudnn&) = delete;

  const std::string& path() const { return library_.path(); }
  std::size_t version() const { return version_; }

  // One pass: forward y = conv(x, w) from (a, b) = (x, w); data dx from
  // (dy, w); filter dw from (x, dy). `out` is overwritten. `workspace`
  // gives device memory of the bytes asked for (called only when the
  // algorithm needs some). Returns cuDNN's status: kNotSupported where no
  // algorithm suits (the caller then runs the window and the GEMM).
  cudnn_abi::Status run(Pass pass, const ConvShape& s, Precision precision, bool deterministic,
                        CUdeviceptr a, CUdeviceptr b, CUdeviceptr out,
                        const std::function<CUdeviceptr(std::size_t)>& workspace) const;

 private:
  Cudnn() = default;
  // A shape's descriptors and the algorithm the heuristics picked for a
  // pass, made once.
  struct Plan {
    cudnn_abi::TensorDesc x = nullptr, y = nullptr;
    cudnn_abi::FilterDesc w = nullptr;
    cudnn_abi::ConvDesc conv = nullptr;
    int algo = 0;
    std::size_t workspace = 0;
    cudnn_abi::Status status = cudnn_abi::kSuccess;
  };
  using Key = std::tuple<int, decltype(ConvShape{}.key()), int, bool>;
  Plan& plan(Pass pass, const ConvShape& s, int math, bool deterministic) const;
  cudnn_abi::Status pick(Pass pass, Plan& p, int math, bool deterministic) const;

  support::DynamicLibrary library_;
  std::size_t version_ = 0;
  cudnn_abi::Handle handle_ = nullptr;
  cudnn_abi::Destroy_t destroy_ = nullptr;
  cudnn_abi::CreateTensor_t create_tensor_ = nullptr;
  cudnn_abi::DestroyTensor_t destroy_tensor_ = nullptr;
  cudnn_abi::SetTensor4d_t set_tensor_ = nullptr;
  cudnn_abi::CreateFilter_t create_filter_ = nullptr;
  cudnn_abi::DestroyFilter_t destroy_filter_ = nullptr;
  cudnn_abi::SetFilter4d_t set_filter_ = nullptr;
  cudnn_abi::CreateConv_t create_conv_ = nullptr;
  cudnn_abi::DestroyConv_t destroy_conv_ = nullptr;
  cudnn_abi::SetConv2d_t set_conv_ = nullptr;
  cudnn_abi::SetMathType_t set_math_ = nullptr;
  cudnn_abi::ForwardAlgorithm_t forward_algorithm_ = nullptr;
  cudnn_abi::ForwardWorkspace_t forward_workspace_ = nullptr;
  cudnn_abi::Forward_t forward_ = nullptr;
  cudnn_abi::DataAlgorithm_t data_algorithm_ = nullptr;
  cudnn_abi::DataWorkspace_t data_workspace_ = nullptr;
  cudnn_abi::Data_t data_ = nullptr;
  cudnn_abi::FilterAlgorithm_t filter_algorithm_ = nullptr;
  cudnn_abi::FilterWorkspace_t filter_workspace_ = nullptr;
  cudnn_abi::Filter_t filter_ = nullptr;
  mutable std::mutex mutex_;
  mutable std::map<Key, Plan> plans_;
};

}  // namespace ss::cuda
