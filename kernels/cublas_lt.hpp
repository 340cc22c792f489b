// cuBLASLt, opened at run time beside cuBLAS, for the one thing cuBLAS's
// GEMM can't do: a bias, and a ReLU after it, applied in the GEMM's
// epilogue (CUBLASLT_EPILOGUE_BIAS, _RELU_BIAS). So `relu(x @ w + b)`
// costs one call, its [rows n] product never stored before the bias and
// the ReLU are applied. The precision policy picks the compute type as for
// cuBLAS (cublas.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "kernels/cuda_api.hpp"
#include "shapescript/options.hpp"
#include "support/dynamic_library.hpp"

namespace ss::cuda {

// cublasLt.h's values (tests/toolchain compares them with the header).
namespace cublas_lt_abi {
using Handle = void*;      // cublasLtHandle_t
using Desc = void*;        // cublasLtMatmulDesc_t
using Layout = void*;      // cublasLtMatrixLayout_t
using Preference = void*;  // cublasLtMatmulPreference_t
using Status = int;
struct Algo {  // cublasLtMatmulAlgo_t
  std::uint64_t data[8];
};
struct HeuristicResult {  // cublasLtMatmulHeuristicResult_t
  Algo algo;
  std::size_t workspace_size;
  Status state;
  float waves_count;
  int reserved[4];
};
inline constexpr Status kSuccess = 0;
inline constexpr Status kNotSupported = 15;  // CUBLAS_STATUS_NOT_SUPPORTED
inline constexpr int kR32F = 0;
inline constexpr int kDescEpilogue = 7;                // CUBLASLT_MATMUL_DESC_EPILOGUE
inline constexpr int kDescBiasPointer = 8;             // CUBLASLT_MATMUL_DESC_BIAS_POINTER
inline constexpr std::uint32_t kEpilogueBias = 4;      // CUBLASLT_EPILOGUE_BIAS
inline constexpr std::uint32_t kEpilogueReluBias = 6;  // CUBLASLT_EPILOGUE_RELU_BIAS
using Create_t = Status (*)(Handle*);
using Destroy_t = Status (*)(Handle);
using DescCreate_t = Status (*)(Desc*, int compute_type, int scale_type);
using DescDestroy_t = Status (*)(Desc);
using DescSetAttribute_t = Status (*)(Desc, int attribute, const void* value, std::size_t size);
using LayoutCreate_t = Status (*)(Layout*, int type, std::uint64_t rows, std::uint64_t cols,
                                  std::int64_t ld);
using LayoutDestroy_t = Status (*)(Layout);
using PreferenceCreate_t = Status (*)(Preference*);
using PreferenceDestroy_t = Status (*)(Preference);
using Heuristic_t = Status (*)(Handle, Desc, Layout a, Layout b, Layout c, Layout d, Preference,
                               int requested, HeuristicResult* results, int* returned);
using Matmul_t = Status (*)(Handle, Desc, const void* alpha, const void* a, Layout, const void* b,
                            Layout, const void* beta, const void* c, Layout, void* d, Layout,
                            const Algo* algo, void* workspace, std::size_t workspace_size,
                            CUstream stream);
}  // namespace cublas_lt_abi

class CublasLt {
 public:
  // `path` empty: the toolkit's library (cublas_lt_candidates). Null, with
  // *why (where `why` isn't null), when it can't be loaded or a handle
  // can't be made. Its GEMMs run on `stream`.
  static std::unique_ptr<CublasLt> open(const std::string& path, CUstream stream, std::string* why);
  ~CublasLt();
  CublasLt(const CublasLt&) = delete;
  CublasLt& operator=(const CublasLt&) = delete;

  // Row-major C = A (m x k) @ B (k x n) + bias (n, each column's), then
  // max(0, .) with `relu`; A, B and C compact. Returns
  // cuBLASLt's status: kNotSupported where its heuristics offer no
  // algorithm (the caller then runs the GEMM and a kernel).
  cublas_lt_abi::Status gemm_bias(std::int64_t m, std::int64_t n, std::int64_t k, CUdeviceptr a,
                                  CUdeviceptr b, CUdeviceptr bias, CUdeviceptr c, bool relu,
                                  Precision precision) const;

 private:
  CublasLt() = default;
  // A shape's descriptors and the algorithm the heuristics picked, made
  // once (the bias pointer is set on each call).
  struct Plan {
    cublas_lt_abi::Desc desc = nullptr;
    cublas_lt_abi::Layout a = nullptr, b = nullptr, c = nullptr;
    cublas_lt_abi::Algo algo{};
    cublas_lt_abi::Status status = cublas_lt_abi::kSuccess;
  };
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, int>;
  Plan& plan(const Key& key) const;

  support::DynamicLibrary library_;
  CUstream stream_ = nullptr;
  cublas_lt_abi::Handle handle_ = nullptr;
  cublas_lt_abi::Preference preference_ = nullptr;
  cublas_lt_abi::Destroy_t destroy_ = nullptr;
  cublas_lt_abi::DescCreate_t desc_create_ = nullptr;
  cublas_lt_abi::DescDestroy_t desc_destroy_ = nullptr;
  cublas_lt_abi::DescSetAttribute_t desc_set_ = nullptr;
  cublas_lt_abi::LayoutCreate_t layout_create_ = nullptr;
  cublas_lt_abi::LayoutDestroy_t layout_destroy_ = nullptr;
  cublas_lt_abi::PreferenceDestroy_t preference_destroy_ = nullptr;
  cublas_lt_abi::Heuristic_t heuristic_ = nullptr;
  cublas_lt_abi::Matmul_t matmul_ = nullptr;
  mutable std::mutex mutex_;
  mutable std::map<Key, Plan> plans_;
};

}  // namespace ss::cuda
