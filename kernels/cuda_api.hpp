// The few CUDA Driver API and NVRTC declarations the library calls, written
// out here so the core builds without the CUDA toolkit's headers and never
// links libcuda or libnvrtc (both are opened with dlopen). Values and
// signatures are those of cuda.h and nvrtc.h; tests/toolchain compares them
// with the real headers wherever the toolkit is installed.
#pragma once

#include <cstddef>

namespace ss::cuda {

using CUresult = int;
using CUdevice = int;
using CUdevice_attribute = int;
using CUdeviceptr = unsigned long long;  // cuda.h: CUdeviceptr_v2, on 64-bit hosts
struct CUctx_st;
using CUcontext = CUctx_st*;
struct CUstream_st;
using CUstream = CUstream_st*;
struct CUmod_st;
using CUmodule = CUmod_st*;
struct CUfunc_st;
using CUfunction = CUfunc_st*;
struct CUgraph_st;
using CUgraph = CUgraph_st*;
struct CUgraphExec_st;
using CUgraphExec = CUgraphExec_st*;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
inline constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr CUresult CUDA_ERROR_INVALID_DEVICE = 101;
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;

inline constexpr CUresult CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900;

inline constexpr unsigned int CU_STREAM_NON_BLOCKING = 0x1;
// cuStreamBeginCapture's mode: RELAXED lets the capturing thread allocate.
inline constexpr int CU_STREAM_CAPTURE_MODE_RELAXED = 2;
// cuLaunchKernel's `extra`: the parameters as one packed buffer.
inline constexpr std::size_t kLaunchParamEnd = 0x00;
inline constexpr std::size_t kLaunchParamBufferPointer = 0x01;
inline constexpr std::size_t kLaunchParamBufferSize = 0x02;

inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

// The driver's entry points, by their exported names (the _v2 ones are what
// cuda.h's macros select).
using cuInit_t = CUresult (*)(unsigned int flags);
using cuDriverGetVersion_t = CUresult (*)(int* version);
using cuDeviceGetCount_t = CUresult (*)(int* count);
using cuDeviceGet_t = CUresult (*)(CUdevice* device, int ordinal);
using cuDeviceGetName_t = CUresult (*)(char* name, int length, CUdevice device);
using cuDeviceTotalMem_v2_t = CUresult (*)(std::size_t* bytes, CUdevice device);
using cuDeviceGetAttribute_t = CUresult (*)(int* value, CUdevice_attribute attribute,
                                            CUdevice device);
using cuGetErrorName_t = CUresult (*)(CUresult error, const char** name);
using cuGetErrorString_t = CUresult (*)(CUresult error, const char** text);
// Contexts, streams and memory: what the several-device workers use to stage
// their collectives' buffers on their GPUs.
using cuDevicePrimaryCtxRetain_t = CUresult (*)(CUcontext* context, CUdevice device);
using cuDevicePrimaryCtxRelease_v2_t = CUresult (*)(CUdevice device);
using cuCtxSetCurrent_t = CUresult (*)(CUcontext context);
using cuStreamCreate_t = CUresult (*)(CUstream* stream, unsigned int flags);
using cuStreamDestroy_v2_t = CUresult (*)(CUstream stream);
using cuStreamQuery_t = CUresult (*)(CUstream stream);
using cuMemAlloc_v2_t = CUresult (*)(CUdeviceptr* pointer, std::size_t bytes);
using cuMemFree_v2_t = CUresult (*)(CUdeviceptr pointer);
using cuMemcpyHtoDAsync_v2_t = CUresult (*)(CUdeviceptr to, const void* from, std::size_t bytes,
                                            CUstream stream);
using cuMemcpyDtoHAsync_v2_t = CUresult (*)(void* to, CUdeviceptr from, std::size_t bytes,
                                            CUstream stream);
using cuStreamSynchronize_t = CUresult (*)(CUstream stream);
using cuModuleLoadData_t = CUresult (*)(CUmodule* module, const void* image);
using cuModuleUnload_t = CUresult (*)(CUmodule module);
using cuModuleGetFunction_t = CUresult (*)(CUfunction* function, CUmodule module, const char* name);
// The executor's memory: pinned host staging, device-to-device copies,
// memsets, and how much memory is free.
using cuMemAllocHost_v2_t = CUresult (*)(void** pointer, std::size_t bytes);
using cuMemFreeHost_t = CUresult (*)(void* pointer);
using cuMemcpyDtoDAsync_v2_t = CUresult (*)(CUdeviceptr to, CUdeviceptr from, std::size_t bytes,
                                            CUstream stream);
using cuMemsetD8Async_t = CUresult (*)(CUdeviceptr to, unsigned char value, std::size_t count,
                                       CUstream stream);
using cuMemGetInfo_v2_t = CUresult (*)(std::size_t* free, std::size_t* total);
using cuLaunchKernel_t = CUresult (*)(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                                      unsigned int grid_z, unsigned int block_x,
                                      unsigned int block_y, unsigned int block_z,
                                      unsigned int shared_bytes, CUstream stream, void** params,
                                      void** extra);
// CUDA graphs: a stream's work captured once, then launched as one call.
using cuStreamBeginCapture_v2_t = CUresult (*)(CUstream stream, int mode);
using cuStreamEndCapture_t = CUresult (*)(CUstream stream, CUgraph* graph);
using cuGraphInstantiateWithFlags_t = CUresult (*)(CUgraphExec* exec, CUgraph graph,
                                                   unsigned long long flags);
using cuGraphLaunch_t = CUresult (*)(CUgraphExec exec, CUstream stream);
using cuGraphExecDestroy_t = CUresult (*)(CUgraphExec exec);
using cuGraphDestroy_t = CUresult (*)(CUgraph graph);

}  // namespace ss::cuda

namespace ss::nvrtc {

using nvrtcResult = int;
struct _nvrtcProgram;
using nvrtcProgram = _nvrtcProgram*;

inline constexpr nvrtcResult NVRTC_SUCCESS = 0;
inline constexpr nvrtcResult NVRTC_ERROR_COMPILATION = 6;

using nvrtcVersion_t = nvrtcResult (*)(int* major, int* minor);
using nvrtcGetErrorString_t = const char* (*)(nvrtcResult result);
using nvrtcCreateProgram_t = nvrtcResult (*)(nvrtcProgram* program, const char* source,
                                             const char* name, int num_headers,
                                             const char* const* headers,
                                             const char* const* include_names);
using nvrtcDestroyProgram_t = nvrtcResult (*)(nvrtcProgram* program);
using nvrtcCompileProgram_t = nvrtcResult (*)(nvrtcProgram program, int num_options,
                                              const char* const* options);
using nvrtcGetProgramLogSize_t = nvrtcResult (*)(nvrtcProgram program, std::size_t* size);
using nvrtcGetProgramLog_t = nvrtcResult (*)(nvrtcProgram program, char* log);
using nvrtcGetPTXSize_t = nvrtcResult (*)(nvrtcProgram program, std::size_t* size);
using nvrtcGetPTX_t = nvrtcResult (*)(nvrtcProgram program, char* ptx);
using nvrtcGetCUBINSize_t = nvrtcResult (*)(nvrtcProgram program, std::size_t* size);
using nvrtcGetCUBIN_t = nvrtcResult (*)(nvrtcProgram program, char* cubin);

}  // namespace ss::nvrtc
