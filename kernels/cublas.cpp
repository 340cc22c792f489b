#include "kernels/cublas.hpp"

#include "kernels/cuda_libraries.hpp"

namespace ss::cuda {

int cublas_compute_type(Precision precision) {
  using namespace cublas_abi;
  return precision == Precision::bf16   ? kCompute32FFast16BF
         : precision == Precision::tf32 ? kCompute32FFastTF32
                                        : kCompute32F;
}

std::unique_ptr<Cublas> Cublas::open(CUstream stream, std::string* why) {
  std::unique_ptr<Cublas> blas(new Cublas());
  // cuBLASLt first, from the toolkit's folder if need be: cuBLAS needs it.
  blas->lt_ = support::DynamicLibrary::open_first(cublas_lt_candidates());
  blas->library_ = support::DynamicLibrary::open_first(cublas_candidates(), why);
  if (!blas->library_) return nullptr;
  cublas_abi::Create_t create = nullptr;
  cublas_abi::SetStream_t set_stream = nullptr;
  if (!blas->library_.load(create, "cublasCreate_v2") ||
      !blas->library_.load(blas->destroy_, "cublasDestroy_v2") ||
      !blas->library_.load(set_stream, "cublasSetStream_v2") ||
      !blas->library_.load(blas->gemm_, "cublasGemmStridedBatchedEx")) {
    if (why) *why = blas->library_.path() + " lacks cublasCreate_v2 or cublasGemmStridedBatchedEx";
    return nullptr;
  }
  if (const auto s = create(&blas->handle_); s != cublas_abi::kSuccess) {
    if (why) *why = "cublasCreate failed with status " + std::to_string(s);
    blas->handle_ = nullptr;
    return nullptr;
  }
  if (const auto s = set_stream(blas->handle_, stream); s != cublas_abi::kSuccess) {
    if (why) *why = "cublasSetStream failed with status " + std::to_string(s);
    return nullptr;
  }
  return blas;
}

Cublas::~Cublas() {
  if (handle_) destroy_(handle_);
}

cublas_abi::Status Cublas::gemm(std::int64_t m, std::int64_t n, std::int64_t k, CUdeviceptr a,
                                std::int64_t stride_a, CUdeviceptr b, std::int64_t stride_b,
                                CUdeviceptr c, std::int64_t stride_c, std::int64_t batches,
                                Precision precision, Bf16Operands bf16) const {
  using namespace cublas_abi;
  const int compute = bf16.ab ? kCompute32F : cublas_compute_type(precision);
  const int ab = bf16.ab ? kR16BF : kR32F, c_type = bf16.c ? kR16BF : kR32F;
  const float one = 1.0f, zero = 0.0f;
  // cuBLAS is column-major: row-major C = A B is column-major C^T = B^T A^T,
  // so B comes first and the sizes swap.
  return gemm_(handle_, kOpN, kOpN, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
               &one, reinterpret_cast<const void*>(b), ab, static_cast<int>(n), stride_b,
               reinterpret_cast<const void*>(a), ab, static_cast<int>(k), stride_a, &zero,
               reinterpret_cast<void*>(c), c_type, static_cast<int>(n), stride_c,
               static_cast<int>(batches), compute, kGemmDefault);
}

}  // namespace ss::cuda
