// kernels/cuda_api.hpp writes out the few CUDA declarations the library needs
// so the core builds without the toolkit; where the toolkit is installed, its
// real headers must agree with them. Built only when cuda.h and nvrtc.h exist.
#include <cuda.h>
#include <doctest/doctest.h>
#include <nvrtc.h>

#include <type_traits>

#include "kernels/cublas.hpp"
#include "kernels/cuda_api.hpp"

#if __has_include(<cublas_api.h>)
#include <cublas_api.h>

namespace abi = ss::cuda::cublas_abi;
static_assert(abi::kSuccess == CUBLAS_STATUS_SUCCESS);
static_assert(abi::kOpN == CUBLAS_OP_N);
static_assert(abi::kR32F == CUDA_R_32F);
static_assert(abi::kR16BF == CUDA_R_16BF);
static_assert(abi::kCompute32F == CUBLAS_COMPUTE_32F);
static_assert(abi::kCompute32FFast16BF == CUBLAS_COMPUTE_32F_FAST_16BF);
static_assert(abi::kCompute32FFastTF32 == CUBLAS_COMPUTE_32F_FAST_TF32);
static_assert(abi::kGemmDefault == CUBLAS_GEMM_DEFAULT);
static_assert(sizeof(cublasOperation_t) == sizeof(int) && sizeof(cudaDataType) == sizeof(int) &&
              sizeof(cublasComputeType_t) == sizeof(int) &&
              sizeof(cublasGemmAlgo_t) == sizeof(int));
// The exported function's signature, its enums as the ints the table passes
// (the header also has a C++ overload; this picks the C one or fails).
using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                  int, const void*, const void*, cudaDataType, int, long long,
                                  const void*, cudaDataType, int, long long, const void*, void*,
                                  cudaDataType, int, long long, int, cublasComputeType_t,
                                  cublasGemmAlgo_t);
static_assert(std::is_same_v<decltype(static_cast<GemmEx>(&::cublasGemmStridedBatchedEx)), GemmEx>);
#endif

#if __has_include(<cublasLt.h>)
#include <cublasLt.h>

#include <cstddef>

#include "kernels/cublas_lt.hpp"

namespace lt = ss::cuda::cublas_lt_abi;
static_assert(lt::kSuccess == CUBLAS_STATUS_SUCCESS);
static_assert(lt::kNotSupported == CUBLAS_STATUS_NOT_SUPPORTED);
static_assert(lt::kR32F == CUDA_R_32F);
static_assert(lt::kDescEpilogue == CUBLASLT_MATMUL_DESC_EPILOGUE);
static_assert(lt::kDescBiasPointer == CUBLASLT_MATMUL_DESC_BIAS_POINTER);
static_assert(lt::kEpilogueBias == CUBLASLT_EPILOGUE_BIAS);
static_assert(lt::kEpilogueReluBias == CUBLASLT_EPILOGUE_RELU_BIAS);
static_assert(sizeof(lt::Algo) == sizeof(cublasLtMatmulAlgo_t));
static_assert(sizeof(lt::HeuristicResult) == sizeof(cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(lt::HeuristicResult, workspace_size) ==
              offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(lt::HeuristicResult, state) ==
              offsetof(cublasLtMatmulHeuristicResult_t, state));
static_assert(sizeof(cublasLtEpilogue_t) == sizeof(std::uint32_t));
// The entry points' signatures, the handles as the void* the table holds.
static_assert(std::is_same_v<decltype(&::cublasLtMatrixLayoutCreate),
                             cublasStatus_t (*)(cublasLtMatrixLayout_t*, cudaDataType, uint64_t,
                                                uint64_t, int64_t)>);
static_assert(
    std::is_same_v<decltype(&::cublasLtMatmulDescSetAttribute),
                   cublasStatus_t (*)(cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t,
                                      const void*, size_t)>);
#endif

#if __has_include(<cudnn.h>)
// The legacy convolution API is marked deprecated in cuDNN 9 (it is still
// there, and what kernels/cudnn calls).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cudnn.h>

#include <cstddef>

#include "kernels/cudnn.hpp"

namespace dnn = ss::cuda::cudnn_abi;
static_assert(dnn::kSuccess == CUDNN_STATUS_SUCCESS);
static_assert(dnn::kNotSupported == CUDNN_STATUS_NOT_SUPPORTED);
static_assert(dnn::kDataFloat == CUDNN_DATA_FLOAT);
static_assert(dnn::kTensorNhwc == CUDNN_TENSOR_NHWC);
static_assert(dnn::kCrossCorrelation == CUDNN_CROSS_CORRELATION);
static_assert(dnn::kDefaultMath == CUDNN_DEFAULT_MATH);
static_assert(dnn::kTensorOpMath == CUDNN_TENSOR_OP_MATH);
static_assert(dnn::kFmaMath == CUDNN_FMA_MATH);
static_assert(dnn::kDeterministic == CUDNN_DETERMINISTIC);
static_assert(sizeof(cudnnStatus_t) == sizeof(int) && sizeof(cudnnDataType_t) == sizeof(int) &&
              sizeof(cudnnTensorFormat_t) == sizeof(int) && sizeof(cudnnMathType_t) == sizeof(int));
// One layout stands for the three passes' perf structs: each field alike.
#define SS_SAME_PERF(T)                                                            \
  static_assert(sizeof(dnn::AlgoPerf) == sizeof(T));                               \
  static_assert(offsetof(dnn::AlgoPerf, status) == offsetof(T, status));           \
  static_assert(offsetof(dnn::AlgoPerf, memory) == offsetof(T, memory));           \
  static_assert(offsetof(dnn::AlgoPerf, determinism) == offsetof(T, determinism)); \
  static_assert(offsetof(dnn::AlgoPerf, math_type) == offsetof(T, mathType));
SS_SAME_PERF(cudnnConvolutionFwdAlgoPerf_t)
SS_SAME_PERF(cudnnConvolutionBwdDataAlgoPerf_t)
SS_SAME_PERF(cudnnConvolutionBwdFilterAlgoPerf_t)
#undef SS_SAME_PERF
// The descriptors' setters, whose argument orders differ (format, then
// type for a tensor; type, then format for a filter).
static_assert(std::is_same_v<decltype(&::cudnnSetTensor4dDescriptor),
                             cudnnStatus_t (*)(cudnnTensorDescriptor_t, cudnnTensorFormat_t,
                                               cudnnDataType_t, int, int, int, int)>);
static_assert(std::is_same_v<decltype(&::cudnnSetFilter4dDescriptor),
                             cudnnStatus_t (*)(cudnnFilterDescriptor_t, cudnnDataType_t,
                                               cudnnTensorFormat_t, int, int, int, int)>);
static_assert(std::is_same_v<
              decltype(&::cudnnGetConvolutionBackwardFilterAlgorithm_v7),
              cudnnStatus_t (*)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnTensorDescriptor_t,
                                cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t, int, int*,
                                cudnnConvolutionBwdFilterAlgoPerf_t*)>);
static_assert(
    std::is_same_v<decltype(&::cudnnConvolutionBackwardData),
                   cudnnStatus_t (*)(cudnnHandle_t, const void*, cudnnFilterDescriptor_t,
                                     const void*, cudnnTensorDescriptor_t, const void*,
                                     cudnnConvolutionDescriptor_t, cudnnConvolutionBwdDataAlgo_t,
                                     void*, size_t, const void*, cudnnTensorDescriptor_t, void*)>);
#pragma GCC diagnostic pop
#endif

static_assert(ss::cuda::CUDA_SUCCESS == CUDA_SUCCESS);
static_assert(ss::cuda::CUDA_ERROR_NOT_INITIALIZED == CUDA_ERROR_NOT_INITIALIZED);
static_assert(ss::cuda::CUDA_ERROR_STUB_LIBRARY == CUDA_ERROR_STUB_LIBRARY);
static_assert(ss::cuda::CUDA_ERROR_NO_DEVICE == CUDA_ERROR_NO_DEVICE);
static_assert(ss::cuda::CUDA_ERROR_INVALID_DEVICE == CUDA_ERROR_INVALID_DEVICE);
static_assert(ss::cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(ss::cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(ss::cuda::CUDA_ERROR_NOT_READY == CUDA_ERROR_NOT_READY);
static_assert(ss::cuda::CU_STREAM_NON_BLOCKING == CU_STREAM_NON_BLOCKING);
static_assert(sizeof(ss::cuda::CUresult) == sizeof(CUresult));
static_assert(sizeof(ss::cuda::CUdeviceptr) == sizeof(CUdeviceptr));
static_assert(sizeof(ss::cuda::CUdevice) == sizeof(CUdevice));
static_assert(ss::nvrtc::NVRTC_SUCCESS == NVRTC_SUCCESS);
static_assert(ss::nvrtc::NVRTC_ERROR_COMPILATION == NVRTC_ERROR_COMPILATION);
static_assert(sizeof(ss::nvrtc::nvrtcResult) == sizeof(nvrtcResult));

// The entry points whose exported names or signatures changed across
// versions have the ones cuda_api.hpp assumes.
static_assert(std::is_same_v<decltype(&cuDeviceTotalMem), CUresult (*)(size_t*, CUdevice)>,
              "cuDeviceTotalMem is cuDeviceTotalMem_v2 with this signature");
static_assert(std::is_same_v<decltype(&nvrtcCreateProgram),
                             nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int,
                                             const char* const*, const char* const*)>);
static_assert(std::is_same_v<decltype(&nvrtcGetCUBIN), nvrtcResult (*)(nvrtcProgram, char*)>);
static_assert(std::is_same_v<decltype(&cuMemAlloc), CUresult (*)(CUdeviceptr*, size_t)>,
              "cuMemAlloc is cuMemAlloc_v2 with this signature");
static_assert(std::is_same_v<decltype(&cuMemcpyHtoDAsync_v2),
                             CUresult (*)(CUdeviceptr, const void*, size_t, CUstream)>);
static_assert(std::is_same_v<decltype(&cuMemcpyDtoHAsync_v2),
                             CUresult (*)(void*, CUdeviceptr, size_t, CUstream)>);
static_assert(std::is_same_v<decltype(&cuStreamSynchronize), CUresult (*)(CUstream)>);
static_assert(std::is_same_v<decltype(&cuModuleLoadData), CUresult (*)(CUmodule*, const void*)>);
static_assert(std::is_same_v<decltype(&cuModuleUnload), CUresult (*)(CUmodule)>);
static_assert(std::is_same_v<decltype(&cuMemAllocHost), CUresult (*)(void**, size_t)>,
              "cuMemAllocHost is cuMemAllocHost_v2");
static_assert(std::is_same_v<decltype(&cuMemFreeHost), CUresult (*)(void*)>);
static_assert(std::is_same_v<decltype(&cuMemcpyDtoDAsync),
                             CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream)>,
              "cuMemcpyDtoDAsync is cuMemcpyDtoDAsync_v2");
static_assert(std::is_same_v<decltype(&cuMemsetD8Async),
                             CUresult (*)(CUdeviceptr, unsigned char, size_t, CUstream)>);
static_assert(std::is_same_v<decltype(&cuMemGetInfo), CUresult (*)(size_t*, size_t*)>,
              "cuMemGetInfo is cuMemGetInfo_v2");
static_assert(ss::cuda::CUDA_ERROR_OUT_OF_MEMORY == CUDA_ERROR_OUT_OF_MEMORY);
static_assert(std::is_same_v<decltype(&cuModuleGetFunction),
                             CUresult (*)(CUfunction*, CUmodule, const char*)>);
static_assert(std::is_same_v<decltype(&cuLaunchKernel),
                             CUresult (*)(CUfunction, unsigned int, unsigned int, unsigned int,
                                          unsigned int, unsigned int, unsigned int, unsigned int,
                                          CUstream, void**, void**)>);
static_assert(ss::cuda::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED ==
              CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
static_assert(ss::cuda::CU_STREAM_CAPTURE_MODE_RELAXED == CU_STREAM_CAPTURE_MODE_RELAXED);
static_assert(ss::cuda::kLaunchParamEnd == CU_LAUNCH_PARAM_END_AS_INT);
static_assert(ss::cuda::kLaunchParamBufferPointer == CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT);
static_assert(ss::cuda::kLaunchParamBufferSize == CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT);
static_assert(sizeof(CUstreamCaptureMode) == sizeof(int));
static_assert(
    std::is_same_v<decltype(&cuStreamBeginCapture), CUresult (*)(CUstream, CUstreamCaptureMode)>,
    "cuStreamBeginCapture is cuStreamBeginCapture_v2");
static_assert(std::is_same_v<decltype(&cuStreamEndCapture), CUresult (*)(CUstream, CUgraph*)>);
static_assert(std::is_same_v<decltype(&cuGraphInstantiate),
                             CUresult (*)(CUgraphExec*, CUgraph, unsigned long long)>,
              "cuGraphInstantiate is cuGraphInstantiateWithFlags");
static_assert(std::is_same_v<decltype(&cuGraphLaunch), CUresult (*)(CUgraphExec, CUstream)>);
static_assert(std::is_same_v<decltype(&cuGraphExecDestroy), CUresult (*)(CUgraphExec)>);
static_assert(std::is_same_v<decltype(&cuGraphDestroy), CUresult (*)(CUgraph)>);
static_assert(std::is_same_v<decltype(&cuStreamDestroy), CUresult (*)(CUstream)>,
              "cuStreamDestroy is cuStreamDestroy_v2");
static_assert(std::is_same_v<decltype(&cuDevicePrimaryCtxRelease), CUresult (*)(CUdevice)>,
              "cuDevicePrimaryCtxRelease is cuDevicePrimaryCtxRelease_v2");

#if __has_include(<nccl.h>)
#include <nccl.h>

#include <cstddef>

#include "kernels/nccl_api.hpp"

// NCCL's values, and the leading fields of its config where ours has them.
static_assert(ss::nccl::ncclSuccess == ncclSuccess);
static_assert(ss::nccl::ncclInProgress == ncclInProgress);
static_assert(ss::nccl::ncclInt32 == ncclInt32 && ss::nccl::ncclFloat32 == ncclFloat32 &&
              ss::nccl::ncclUint8 == ncclUint8 && ss::nccl::ncclSum == ncclSum);
static_assert(sizeof(ss::nccl::ncclUniqueId) == sizeof(ncclUniqueId));
static_assert(offsetof(ss::nccl::ncclConfigPrefix, size) == offsetof(ncclConfig_t, size));
static_assert(offsetof(ss::nccl::ncclConfigPrefix, magic) == offsetof(ncclConfig_t, magic));
static_assert(offsetof(ss::nccl::ncclConfigPrefix, version) == offsetof(ncclConfig_t, version));
static_assert(offsetof(ss::nccl::ncclConfigPrefix, blocking) == offsetof(ncclConfig_t, blocking));
static_assert(ss::nccl::ncclConfigPrefix{}.version == NCCL_VERSION(2, 14, 0));
static_assert(ss::nccl::ncclConfigPrefix{}.blocking == NCCL_CONFIG_UNDEF_INT);
static_assert(
    std::is_same_v<decltype(&ncclCommGetAsyncError), ncclResult_t (*)(ncclComm_t, ncclResult_t*)>);
static_assert(std::is_same_v<decltype(&ncclAllReduce),
                             ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t,
                                              ncclRedOp_t, ncclComm_t, cudaStream_t)>);
#endif

TEST_CASE("the written-out CUDA declarations agree with the toolkit's headers") {
  CHECK(CUDA_VERSION >= 12000);  // the toolkit the tests were built against is 12 or later
}
