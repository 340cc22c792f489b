#include "kernels/cublas_lt.hpp"

#include "kernels/cublas.hpp"
#include "kernels/cuda_libraries.hpp"

namespace ss::cuda {

using namespace cublas_lt_abi;

std::unique_ptr<CublasLt> CublasLt::open(const std::string& path, CUstream stream,
                                         std::string* why) {
  std::unique_ptr<CublasLt> lt(new CublasLt());
  lt->stream_ = stream;
  lt->library_ = support::DynamicLibrary::open_first(
      path.empty() ? cublas_lt_candidates() : std::vector<std::string>{path}, why);
  if (!lt->library_) return nullptr;
  Create_t create = nullptr;
  PreferenceCreate_t preference_create = nullptr;
  auto& l = lt->library_;
  if (!l.load(create, "cublasLtCreate") || !l.load(lt->destroy_, "cublasLtDestroy") ||
      !l.load(lt->desc_create_, "cublasLtMatmulDescCreate") ||
      !l.load(lt->desc_destroy_, "cublasLtMatmulDescDestroy") ||
      !l.load(lt->desc_set_, "cublasLtMatmulDescSetAttribute") ||
      !l.load(lt->layout_create_, "cublasLtMatrixLayoutCreate") ||
      !l.load(lt->layout_destroy_, "cublasLtMatrixLayoutDestroy") ||
      !l.load(preference_create, "cublasLtMatmulPreferenceCreate") ||
      !l.load(lt->preference_destroy_, "cublasLtMatmulPreferenceDestroy") ||
      !l.load(lt->heuristic_, "cublasLtMatmulAlgoGetHeuristic") ||
      !l.load(lt->matmul_, "cublasLtMatmul")) {
    if (why) *why = l.path() + " lacks a cublasLt function the epilogues need";
    return nullptr;
  }
  if (const Status s = create(&lt->handle_); s != kSuccess) {
    if (why) *why = "cublasLtCreate failed with status " + std::to_string(s);
    lt->handle_ = nullptr;
    return nullptr;
  }
  // No workspace (the preference's default): nothing to allocate while a
  // CUDA graph is being captured.
  if (const Status s = preference_create(&lt->preference_); s != kSuccess) {
    if (why) *why = "cublasLtMatmulPreferenceCreate failed with status " + std::to_string(s);
    lt->preference_ = nullptr;
    return nullptr;
  }
  return lt;
}

CublasLt::~CublasLt() {
  for (auto& [key, p] : plans_) {
    for (Layout layout : {p.a, p.b, p.c})
      if (layout) layout_destroy_(layout);
    if (p.desc) desc_destroy_(p.desc);
  }
  if (preference_) preference_destroy_(preference_);
  if (handle_) destroy_(handle_);
}

CublasLt::Plan& CublasLt::plan(const Key& key) const {
  if (const auto it = plans_.find(key); it != plans_.end()) return it->second;
  Plan& p = plans_[key];
  const auto [m, n, k, relu, compute] = key;
  // Column-major, as cuBLAS is: row-major C = A B is C^T = B^T A^T, so B
  // (n x k, column-major) comes first, then A (k x m), and D is n x m: its
  // rows are C's columns, which the bias runs along.
  const auto u = [](std::int64_t x) { return static_cast<std::uint64_t>(x); };
  p.status = desc_create_(&p.desc, compute, kR32F);
  if (p.status != kSuccess) return p;
  const std::uint32_t epilogue = relu ? kEpilogueReluBias : kEpilogueBias;
  p.status = desc_set_(p.desc, kDescEpilogue, &epilogue, sizeof epilogue);
  if (p.status == kSuccess) p.status = layout_create_(&p.a, kR32F, u(n), u(k), n);
  if (p.status == kSuccess) p.status = layout_create_(&p.b, kR32F, u(k), u(m), k);
  if (p.status == kSuccess) p.status = layout_create_(&p.c, kR32F, u(n), u(m), n);
  if (p.status != kSuccess) return p;
  // The heuristics read the bias pointer's alignment: any 256-aligned one
  // (the allocator's) stands for the calls'.
  const void* aligned = reinterpret_cast<const void*>(std::uintptr_t{256});
  p.status = desc_set_(p.desc, kDescBiasPointer, &aligned, sizeof aligned);
  HeuristicResult result{};
  int returned = 0;
  if (p.status == kSuccess)
    p.status = heuristic_(handle_, p.desc, p.a, p.b, p.c, p.c, preference_, 1, &result, &returned);
  if (p.status == kSuccess && returned < 1) p.status = kNotSupported;
  p.algo = result.algo;
  return p;
}

Status CublasLt::gemm_bias(std::int64_t m, std::int64_t n, std::int64_t k, CUdeviceptr a,
                           CUdeviceptr b, CUdeviceptr bias, CUdeviceptr c, bool relu,
                           Precision precision) const {
  std::lock_guard lock(mutex_);
  const Plan& p = plan({m, n, k, relu, cublas_compute_type(precision)});
  if (p.status != kSuccess) return p.status;
  const void* bias_pointer = reinterpret_cast<const void*>(bias);
  if (const Status s = desc_set_(p.desc, kDescBiasPointer, &bias_pointer, sizeof bias_pointer);
      s != kSuccess)
    return s;
  const float one = 1.0f, zero = 0.0f;
  void* out = reinterpret_cast<void*>(c);
  return matmul_(handle_, p.desc, &one, reinterpret_cast<const void*>(b), p.a,
                 reinterpret_cast<const void*>(a), p.b, &zero, out, p.c, out, p.c, &p.algo, nullptr,
                 0, stream_);
}

}  // namespace ss::cuda
