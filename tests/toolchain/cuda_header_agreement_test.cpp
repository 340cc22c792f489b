// kernels/cuda_api.hpp writes out the few CUDA declarations the library needs
// so the core builds without the toolkit; where the toolkit is installed, its
// real headers must agree with them. Built only when cuda.h and nvrtc.h exist.
#include <cuda.h>
#include <doctest/doctest.h>
#include <nvrtc.h>

#include <type_traits>

#include "kernels/cuda_api.hpp"

static_assert(ss::cuda::CUDA_SUCCESS == CUDA_SUCCESS);
static_assert(ss::cuda::CUDA_ERROR_NOT_INITIALIZED == CUDA_ERROR_NOT_INITIALIZED);
static_assert(ss::cuda::CUDA_ERROR_STUB_LIBRARY == CUDA_ERROR_STUB_LIBRARY);
static_assert(ss::cuda::CUDA_ERROR_NO_DEVICE == CUDA_ERROR_NO_DEVICE);
static_assert(ss::cuda::CUDA_ERROR_INVALID_DEVICE == CUDA_ERROR_INVALID_DEVICE);
static_assert(ss::cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(ss::cuda::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(sizeof(ss::cuda::CUresult) == sizeof(CUresult));
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

TEST_CASE("the written-out CUDA declarations agree with the toolkit's headers") {
  CHECK(CUDA_VERSION >= 12000);  // the toolkit the tests were built against is 12 or later
}
