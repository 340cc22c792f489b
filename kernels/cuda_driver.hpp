// The CUDA Driver API, opened at run time. A machine without a driver (or
// with only the toolkit's stub libcuda) gets E1901, an index past the last
// device E1902: coded errors, never a crash.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "kernels/cuda_api.hpp"
#include "shapescript/diagnostic.hpp"
#include "shapescript/options.hpp"
#include "support/dynamic_library.hpp"

namespace ss::cuda {

// Where the driver is looked for: the path given, else SHAPESCRIPT_CUDA_DRIVER,
// else the loader's search for libcuda.so.1. Never the toolkit's stubs folder.
std::vector<std::string> driver_candidates(const std::string& requested);

// The driver's context, stream and memory calls, for code that stages
// buffers on a device (kernels/nccl_collectives.hpp).
struct DeviceCalls {
  cuDevicePrimaryCtxRetain_t cuDevicePrimaryCtxRetain = nullptr;
  cuDevicePrimaryCtxRelease_v2_t cuDevicePrimaryCtxRelease = nullptr;
  cuCtxSetCurrent_t cuCtxSetCurrent = nullptr;
  cuStreamCreate_t cuStreamCreate = nullptr;
  cuStreamDestroy_v2_t cuStreamDestroy = nullptr;
  cuStreamQuery_t cuStreamQuery = nullptr;
  cuMemAlloc_v2_t cuMemAlloc = nullptr;
  cuMemFree_v2_t cuMemFree = nullptr;
  cuMemcpyHtoDAsync_v2_t cuMemcpyHtoDAsync = nullptr;
  cuMemcpyDtoHAsync_v2_t cuMemcpyDtoHAsync = nullptr;
};

// Loading compiled code (a cubin or PTX from NVRTC), launching it, and the
// executor's memory calls (kernels/cuda_device.hpp).
struct KernelCalls {
  cuStreamSynchronize_t cuStreamSynchronize = nullptr;
  cuModuleLoadData_t cuModuleLoadData = nullptr;
  cuModuleUnload_t cuModuleUnload = nullptr;
  cuModuleGetFunction_t cuModuleGetFunction = nullptr;
  cuLaunchKernel_t cuLaunchKernel = nullptr;
  cuMemAllocHost_v2_t cuMemAllocHost = nullptr;
  cuMemFreeHost_t cuMemFreeHost = nullptr;
  cuMemcpyDtoDAsync_v2_t cuMemcpyDtoDAsync = nullptr;
  cuMemsetD8Async_t cuMemsetD8Async = nullptr;
  cuMemGetInfo_v2_t cuMemGetInfo = nullptr;
};

// CUDA graphs: capturing a stream's work and launching it as one call
// (kernels/cuda_graph_replay.hpp). Null where the library lacks them.
struct GraphCalls {
  cuStreamBeginCapture_v2_t cuStreamBeginCapture = nullptr;
  cuStreamEndCapture_t cuStreamEndCapture = nullptr;
  cuGraphInstantiateWithFlags_t cuGraphInstantiate = nullptr;
  cuGraphLaunch_t cuGraphLaunch = nullptr;
  cuGraphExecDestroy_t cuGraphExecDestroy = nullptr;
  cuGraphDestroy_t cuGraphDestroy = nullptr;
};

class Driver {
 public:
  // Opens the driver and calls cuInit. E1901 when there is no usable driver.
  static std::variant<Driver, Diagnostic> open(const std::string& requested_path);

  const std::string& path() const { return library_.path(); }
  int version() const { return version_; }  // e.g. 13000 for CUDA 13.0
  int device_count() const { return device_count_; }

  // Everything about each device, for reports.
  std::vector<CudaDeviceInfo> devices() const;

  // E1902 when the index names no device.
  std::optional<Diagnostic> check_device(int index) const;
  // The driver's handle of device `index` (one check_device accepted).
  CUdevice handle(int index) const;

  // "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)".
  std::string describe(CUresult result) const;

  const DeviceCalls& calls() const { return calls_; }
  // Null where the library lacks them (a stand-in driver in the tests).
  const KernelCalls* kernel_calls() const { return has_kernel_calls_ ? &kernel_calls_ : nullptr; }
  const GraphCalls* graph_calls() const { return has_graph_calls_ ? &graph_calls_ : nullptr; }

 private:
  support::DynamicLibrary library_;
  int version_ = 0;
  int device_count_ = 0;
  KernelCalls kernel_calls_;
  bool has_kernel_calls_ = false;
  GraphCalls graph_calls_;
  bool has_graph_calls_ = false;
  cuInit_t cuInit = nullptr;
  cuDriverGetVersion_t cuDriverGetVersion = nullptr;
  cuDeviceGetCount_t cuDeviceGetCount = nullptr;
  cuDeviceGet_t cuDeviceGet = nullptr;
  cuDeviceGetName_t cuDeviceGetName = nullptr;
  cuDeviceTotalMem_v2_t cuDeviceTotalMem = nullptr;
  cuDeviceGetAttribute_t cuDeviceGetAttribute = nullptr;
  cuGetErrorName_t cuGetErrorName = nullptr;
  cuGetErrorString_t cuGetErrorString = nullptr;
  DeviceCalls calls_;
};

// "cuda:0 (NVIDIA H200)" style names for messages: "cuda:0" when unknown.
std::string device_list(const std::vector<CudaDeviceInfo>& devices);

}  // namespace ss::cuda
