// A stand-in cuBLASLt for kernels/cublas_lt's tests: the few entry points it
// calls, computing on host memory (the stand-in driver's device memory is
// host memory too) by cublasLt.h's column-major rules: D (rows x cols, its
// ld) = alpha A B + beta C, then the epilogue's bias (one per row of D) and
// ReLU. Layouts that don't chain (A's columns B's rows, D A's rows by B's
// columns) are CUBLAS_STATUS_INVALID_VALUE, as a wrong call would be.
// A GEMM on a stream first waits for the work queued there (its copies)
// through the stand-in driver that SS_FAKE_CUDA_PATH names: the driver's
// stream runs its work in order, this computes at once.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fakes/fake_stream_wait.hpp"

namespace {

constexpr int kSuccess = 0, kInvalidValue = 7, kNotSupported = 15;
constexpr int kEpilogue = 7, kBiasPointer = 8;

struct Layout {
  int type;
  std::uint64_t rows, cols;
  std::int64_t ld;
};
struct Desc {
  int compute, scale;
  std::uint32_t epilogue = 1;  // CUBLASLT_EPILOGUE_DEFAULT
  const float* bias = nullptr;
};
int g_handle, g_preference;

}  // namespace

extern "C" {

int cublasLtCreate(void** handle) {
  *handle = &g_handle;
  return kSuccess;
}
int cublasLtDestroy(void*) {
  return kSuccess;
}
int cublasLtMatmulDescCreate(void** desc, int compute, int scale) {
  *desc = new Desc{compute, scale};
  return kSuccess;
}
int cublasLtMatmulDescDestroy(void* desc) {
  delete static_cast<Desc*>(desc);
  return kSuccess;
}
int cublasLtMatmulDescSetAttribute(void* desc, int attribute, const void* value, std::size_t size) {
  auto* d = static_cast<Desc*>(desc);
  if (attribute == kEpilogue && size == sizeof d->epilogue)
    std::memcpy(&d->epilogue, value, size);
  else if (attribute == kBiasPointer && size == sizeof d->bias)
    std::memcpy(&d->bias, value, size);
  else
    return kInvalidValue;
  return kSuccess;
}
int cublasLtMatrixLayoutCreate(void** layout, int type, std::uint64_t rows, std::uint64_t cols,
                               std::int64_t ld) {
  if (ld < static_cast<std::int64_t>(rows)) return kInvalidValue;
  *layout = new Layout{type, rows, cols, ld};
  return kSuccess;
}
int cublasLtMatrixLayoutDestroy(void* layout) {
  delete static_cast<Layout*>(layout);
  return kSuccess;
}
int cublasLtMatmulPreferenceCreate(void** preference) {
  *preference = &g_preference;
  return kSuccess;
}
int cublasLtMatmulPreferenceDestroy(void*) {
  return kSuccess;
}
// One algorithm for any epilogue this stand-in computes.
int cublasLtMatmulAlgoGetHeuristic(void*, void* desc, void*, void*, void*, void*, void*,
                                   int requested, void* results, int* returned) {
  const auto e = static_cast<Desc*>(desc)->epilogue;
  *returned = 0;
  if (requested < 1 || (e != 4 && e != 6)) return kNotSupported;
  std::memset(results, 0, 96);  // cublasLtMatmulHeuristicResult_t
  *returned = 1;
  return kSuccess;
}
int cublasLtMatmul(void*, void* desc, const void* alpha, const void* a, void* a_layout,
                   const void* b, void* b_layout, const void* beta, const void*, void* c_layout,
                   void* d, void* d_layout, const void*, void*, std::size_t, void* stream) {
  if (!ss_fake::wait_for_stream(stream)) return kInvalidValue;
  const auto& e = *static_cast<Desc*>(desc);
  const auto &la = *static_cast<Layout*>(a_layout), &lb = *static_cast<Layout*>(b_layout),
             &lc = *static_cast<Layout*>(c_layout), &ld = *static_cast<Layout*>(d_layout);
  if (la.cols != lb.rows || ld.rows != la.rows || ld.cols != lb.cols || lc.rows != ld.rows ||
      lc.cols != ld.cols || !e.bias)
    return kInvalidValue;
  const float x = *static_cast<const float*>(alpha), y = *static_cast<const float*>(beta);
  const auto* pa = static_cast<const float*>(a);
  const auto* pb = static_cast<const float*>(b);
  auto* pd = static_cast<float*>(d);
  for (std::uint64_t j = 0; j < ld.cols; ++j)
    for (std::uint64_t i = 0; i < ld.rows; ++i) {
      float sum = 0;
      for (std::uint64_t p = 0; p < la.cols; ++p)
        sum += pa[i + p * static_cast<std::uint64_t>(la.ld)] *
               pb[p + j * static_cast<std::uint64_t>(lb.ld)];
      float& out = pd[i + j * static_cast<std::uint64_t>(ld.ld)];
      float v = x * sum + (y != 0 ? y * out : 0.0f) + e.bias[i];
      if (e.epilogue == 6 && !(v > 0)) v = 0;
      out = v;
    }
  return kSuccess;
}

}  // extern "C"
