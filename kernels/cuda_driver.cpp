#include "kernels/cuda_driver.hpp"

#include <cstdlib>

#include "diag/codes.hpp"

namespace ss::cuda {
namespace {

using diag::Code;

constexpr const char* kHelp =
    "install the NVIDIA driver, or run on the CPU (`devices cpu`, or no `devices` line)";

Diagnostic unavailable(const std::string& why, std::vector<std::string> notes = {}) {
  Diagnostic d = diag::error(Code::E1901, "CUDA isn't available: " + why, kHelp);
  d.notes = std::move(notes);
  return d;
}

bool load_device_calls(const support::DynamicLibrary& lib, DeviceCalls& c) {
  return lib.load(c.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
         lib.load(c.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") &&
         lib.load(c.cuCtxSetCurrent, "cuCtxSetCurrent") &&
         lib.load(c.cuStreamCreate, "cuStreamCreate") &&
         lib.load(c.cuStreamDestroy, "cuStreamDestroy_v2") &&
         lib.load(c.cuStreamQuery, "cuStreamQuery") && lib.load(c.cuMemAlloc, "cuMemAlloc_v2") &&
         lib.load(c.cuMemFree, "cuMemFree_v2") &&
         lib.load(c.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2") &&
         lib.load(c.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
}

bool load_kernel_calls(const support::DynamicLibrary& lib, KernelCalls& c) {
  return lib.load(c.cuStreamSynchronize, "cuStreamSynchronize") &&
         lib.load(c.cuModuleLoadData, "cuModuleLoadData") &&
         lib.load(c.cuModuleUnload, "cuModuleUnload") &&
         lib.load(c.cuModuleGetFunction, "cuModuleGetFunction") &&
         lib.load(c.cuLaunchKernel, "cuLaunchKernel") &&
         lib.load(c.cuMemAllocHost, "cuMemAllocHost_v2") &&
         lib.load(c.cuMemFreeHost, "cuMemFreeHost") &&
         lib.load(c.cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2") &&
         lib.load(c.cuMemsetD8Async, "cuMemsetD8Async") &&
         lib.load(c.cuMemGetInfo, "cuMemGetInfo_v2");
}

bool load_graph_calls(const support::DynamicLibrary& lib, GraphCalls& c) {
  return lib.load(c.cuStreamBeginCapture, "cuStreamBeginCapture_v2") &&
         lib.load(c.cuStreamEndCapture, "cuStreamEndCapture") &&
         lib.load(c.cuGraphInstantiate, "cuGraphInstantiateWithFlags") &&
         lib.load(c.cuGraphLaunch, "cuGraphLaunch") &&
         lib.load(c.cuGraphExecDestroy, "cuGraphExecDestroy") &&
         lib.load(c.cuGraphDestroy, "cuGraphDestroy");
}

}  // namespace

std::vector<std::string> driver_candidates(const std::string& requested) {
  if (!requested.empty()) return {requested};
  if (const char* env = std::getenv("SHAPESCRIPT_CUDA_DRIVER"); env && *env) return {env};
  return {"libcuda.so.1", "libcuda.so"};
}

std::variant<Driver, Diagnostic> Driver::open(const std::string& requested_path) {
  const auto candidates = driver_candidates(requested_path);
  std::string why;
  Driver driver;
  driver.library_ = support::DynamicLibrary::open_first(candidates, &why);
  if (!driver.library_)
    return unavailable("can't load the driver `" + candidates.front() + "`", {why});

  const auto& lib = driver.library_;
  const bool complete = lib.load(driver.cuInit, "cuInit") &&
                        lib.load(driver.cuDriverGetVersion, "cuDriverGetVersion") &&
                        lib.load(driver.cuDeviceGetCount, "cuDeviceGetCount") &&
                        lib.load(driver.cuDeviceGet, "cuDeviceGet") &&
                        lib.load(driver.cuDeviceGetName, "cuDeviceGetName") &&
                        lib.load(driver.cuDeviceTotalMem, "cuDeviceTotalMem_v2") &&
                        lib.load(driver.cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
                        lib.load(driver.cuGetErrorName, "cuGetErrorName") &&
                        lib.load(driver.cuGetErrorString, "cuGetErrorString") &&
                        load_device_calls(lib, driver.calls_);
  if (!complete) return unavailable("`" + lib.path() + "` lacks the CUDA Driver API's functions");
  driver.has_kernel_calls_ = load_kernel_calls(lib, driver.kernel_calls_);
  driver.has_graph_calls_ = load_graph_calls(lib, driver.graph_calls_);

  const CUresult init = driver.cuInit(0);
  if (init == CUDA_ERROR_STUB_LIBRARY)
    return unavailable("`" + lib.path() + "` is the CUDA toolkit's stub library, not a driver");
  if (init != CUDA_SUCCESS)
    return unavailable("the driver failed to start: " + driver.describe(init),
                       {"driver: " + lib.path()});

  driver.cuDriverGetVersion(&driver.version_);
  if (const CUresult r = driver.cuDeviceGetCount(&driver.device_count_); r != CUDA_SUCCESS)
    return unavailable("the driver can't count its devices: " + driver.describe(r));
  if (driver.device_count_ <= 0) return unavailable("the driver found no device");
  return driver;
}

std::vector<CudaDeviceInfo> Driver::devices() const {
  std::vector<CudaDeviceInfo> out;
  for (int i = 0; i < device_count_; ++i) {
    CUdevice device = 0;
    if (cuDeviceGet(&device, i) != CUDA_SUCCESS) continue;
    CudaDeviceInfo info;
    info.index = i;
    char name[256] = {};
    if (cuDeviceGetName(name, sizeof name - 1, device) == CUDA_SUCCESS) info.name = name;
    cuDeviceTotalMem(&info.memory_bytes, device);
    cuDeviceGetAttribute(&info.compute_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    cuDeviceGetAttribute(&info.compute_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    out.push_back(std::move(info));
  }
  return out;
}

std::optional<Diagnostic> Driver::check_device(int index) const {
  if (index >= 0 && index < device_count_) return std::nullopt;
  const std::string count =
      device_count_ == 1 ? "1 CUDA device" : std::to_string(device_count_) + " CUDA devices";
  Diagnostic d = diag::error(
      Code::E1902, "no CUDA device " + std::to_string(index) + ": this machine has " + count,
      "use one of " + device_list(devices()));
  return d;
}

CUdevice Driver::handle(int index) const {
  CUdevice device = index;
  cuDeviceGet(&device, index);
  return device;
}

std::string Driver::describe(CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(result, &name);
  if (cuGetErrorString) cuGetErrorString(result, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text) out += std::string(" (") + text + ")";
  return out;
}

std::string device_list(const std::vector<CudaDeviceInfo>& devices) {
  std::string out;
  for (const auto& d : devices) {
    if (!out.empty()) out += ", ";
    out += "cuda:" + std::to_string(d.index);
    if (!d.name.empty()) out += " (" + d.name + ")";
  }
  return out.empty() ? "none" : out;
}

}  // namespace ss::cuda
