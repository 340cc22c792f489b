// cuBLAS, opened at run time like the driver: the CUDA executor's
// contractions as strided batched GEMMs (cublasGemmStridedBatchedEx),
// float32 in and out. The precision policy picks the compute type: f32
// (the default, no down-conversion), tf32 or bf16 (tensor cores on the
// inputs, accumulation and results in float32: the master weights stay
// f32). Under bf16, operands kept in bf16 go in as bf16 (Bf16Operands).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/cuda_api.hpp"
#include "shapescript/options.hpp"
#include "support/dynamic_library.hpp"

namespace ss::cuda {

// cublas_api.h's values (tests/toolchain compares them with the header).
namespace cublas_abi {
using Handle = struct cublasContext*;
using Status = int;
inline constexpr Status kSuccess = 0;
inline constexpr int kOpN = 0;
inline constexpr int kR32F = 0;    // library_types.h: CUDA_R_32F
inline constexpr int kR16BF = 14;  // CUDA_R_16BF
inline constexpr int kCompute32F = 68;
inline constexpr int kCompute32FFast16BF = 75;
inline constexpr int kCompute32FFastTF32 = 77;
inline constexpr int kGemmDefault = -1;
using Create_t = Status (*)(Handle* handle);
using Destroy_t = Status (*)(Handle handle);
using SetStream_t = Status (*)(Handle handle, CUstream stream);
using GemmStridedBatchedEx_t = Status (*)(Handle handle, int transa, int transb, int m, int n,
                                          int k, const void* alpha, const void* a, int a_type,
                                          int lda, long long stride_a, const void* b, int b_type,
                                          int ldb, long long stride_b, const void* beta, void* c,
                                          int c_type, int ldc, long long stride_c, int batches,
                                          int compute_type, int algo);
}  // namespace cublas_abi

// Which of a GEMM's operands lie in bf16 (--precision bf16's kept values,
// kernels/cuda_bf16_plan.hpp): A and B both or neither, C either way.
// bf16 A and B sum in float32 (CUBLAS_COMPUTE_32F).
struct Bf16Operands {
  bool ab = false;
  bool c = false;
};

// The precision policy's compute type (cuBLAS's and cuBLASLt's alike):
// float32, or tensor cores on inputs rounded to TF32 or bf16.
int cublas_compute_type(Precision precision);

class Cublas {
 public:
  // Null, with *why, when cuBLAS can't be loaded or a handle can't be made
  // (the caller's context must be current). The handle runs on `stream`.
  static std::unique_ptr<Cublas> open(CUstream stream, std::string* why);
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;

  const std::string& path() const { return library_.path(); }

  // Row-major C[t] = A[t] (m x k) @ B[t] (k x n) for t < batches, each
  // operand contiguous per batch and `stride_*` elements apart (0: shared).
  // Returns cuBLAS's status (kSuccess on success).
  cublas_abi::Status gemm(std::int64_t m, std::int64_t n, std::int64_t k, CUdeviceptr a,
                          std::int64_t stride_a, CUdeviceptr b, std::int64_t stride_b,
                          CUdeviceptr c, std::int64_t stride_c, std::int64_t batches,
                          Precision precision, Bf16Operands bf16 = {}) const;

 private:
  Cublas() = default;
  support::DynamicLibrary lt_, library_;
  cublas_abi::Handle handle_ = nullptr;
  cublas_abi::Destroy_t destroy_ = nullptr;
  cublas_abi::GemmStridedBatchedEx_t gemm_ = nullptr;
};

}  // namespace ss::cuda
