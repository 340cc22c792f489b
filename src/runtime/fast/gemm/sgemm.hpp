// Single-precision matrix multiply for the CPU executors:
// C = alpha * op(A) op(B) + beta * C, with op(A) M x K and op(B) K x N, each
// matrix given by its element strides (so a transpose is a swap of strides,
// never a copy). Packed panels and a register-tiled micro-kernel, with the
// widest vector unit the CPU has chosen at run time (AVX-512, AVX2+FMA, or
// portable code). The reference runtime's plain loops stay the oracle.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ss::gemm {

struct Matrix {
  const float* data;
  std::int64_t row_stride, col_stride;  // elements between rows, between columns
};

struct Output {
  float* data;
  std::int64_t row_stride;  // columns are contiguous
};

// What is done to each element of C once its sum is whole: a bias by
// column added (bias[j]), then max(x, 0) where x > 0 fails (NaN too) when
// `relu`. The float32 kernels do it as they store their last results
// (at alpha 1: the same bits as a pass over C after); else it is a pass.
struct Epilogue {
  const float* bias = nullptr;  // n floats
  bool relu = false;
};

// M x N output, K the contracted size. beta 0 ignores C's old values (NaNs
// included). `threads` splits the work (1: the caller's thread only).
void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, Matrix a, Matrix b,
           float beta, Output c, int threads = 1, Epilogue epilogue = {});

// B packed once for many products with it (a weight that doesn't change
// between calls): the panels sgemm packs on every call, for one kernel.
// It keeps `b`'s pointer for products of one row (which read B unpacked):
// B must outlive it.
struct PackedB {
  std::int64_t k = 0, n = 0;
  Matrix b{};
  int kernel = 0;      // which of sgemm_kernels() packed it; -1 - i: bf16_kernels()[i]
  bool chain = false;  // chain_kernels()[kernel] packed it
  std::shared_ptr<float> panels;
};
std::shared_ptr<const PackedB> pack_b(std::int64_t k, std::int64_t n, Matrix b);
std::shared_ptr<const PackedB> pack_b_with(const std::string& kernel, std::int64_t k,
                                           std::int64_t n, Matrix b);
// sgemm with B packed: the same bits as sgemm of the unpacked B.
void sgemm_packed(std::int64_t m, float alpha, Matrix a, const PackedB& b, float beta, Output c,
                  int threads = 1, Epilogue epilogue = {});

// The same product with A and B rounded to bfloat16 (to nearest, ties to
// even; subnormals to zero) and the products summed in float32: what
// `--precision bf16` runs on the CPU. Two kernels, best first: "amx"
// (tdpbf16ps on AMX tiles, where the CPU has AMX-BF16 and Linux grants the
// process its tile state) and "avx512bf16" (vdpbf16ps). bf16_supported()
// says whether this CPU has either, bf16_kernel() names the one sgemm_bf16
// runs ("" for none); sgemm_bf16 throws std::invalid_argument where there
// is none, and the _with forms for a kernel the CPU hasn't.
bool bf16_supported();
const char* bf16_kernel();
std::vector<std::string> bf16_kernels();
void sgemm_bf16(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, Matrix a, Matrix b,
                float beta, Output c, int threads = 1);
void sgemm_bf16_with(const std::string& kernel, std::int64_t m, std::int64_t n, std::int64_t k,
                     float alpha, Matrix a, Matrix b, float beta, Output c, int threads = 1);
// B rounded and packed once for sgemm_packed with a bfloat16 kernel: the
// same bits as sgemm_bf16 (or sgemm_bf16_with the kernel) of the unpacked B.
std::shared_ptr<const PackedB> pack_b_bf16(std::int64_t k, std::int64_t n, Matrix b);
std::shared_ptr<const PackedB> pack_b_bf16_with(const std::string& kernel, std::int64_t k,
                                                std::int64_t n, Matrix b);

// The portable numerics' products (Numerics::portable): each element of C
// one chain of fused multiply-adds over k in order from zero, then the
// epilogue, so the same bits on every kernel, vector width, blocking and
// thread split, and for a row whatever the rows beside it. beta 1
// continues each element's chain from C's value (a contraction summed in
// slabs gives the one chain); another alpha or beta scales the whole
// chain after (alpha t + beta c as one fused multiply-add). Kernels
// "chain-avx512", "chain-avx2" and "chain-scalar" (four-wide, any CPU
// with FMA), widest first as the CPU and SHAPESCRIPT_ISA allow; none, and
// these throw std::invalid_argument, on a CPU without FMA. sgemm_with and
// pack_b_with take their names too.
void sgemm_chain(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, Matrix a, Matrix b,
                 float beta, Output c, int threads = 1, Epilogue epilogue = {});
std::shared_ptr<const PackedB> pack_b_chain(std::int64_t k, std::int64_t n, Matrix b);
std::vector<std::string> chain_kernels();

// "avx512", "avx2", "portable": the kernel sgemm uses on this CPU.
const char* sgemm_kernel();

// The kernels this CPU can run, best first, and sgemm with one of them by
// name (the tests run each): an unknown or unsupported name throws
// std::invalid_argument.
std::vector<std::string> sgemm_kernels();
void sgemm_with(const std::string& kernel, std::int64_t m, std::int64_t n, std::int64_t k,
                float alpha, Matrix a, Matrix b, float beta, Output c, int threads = 1,
                Epilogue epilogue = {});

}  // namespace ss::gemm
