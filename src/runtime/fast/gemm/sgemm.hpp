// Single-precision matrix multiply for the CPU executors:
// C = alpha * op(A) op(B) + beta * C, with op(A) M x K and op(B) K x N, each
// matrix given by its element strides (so a transpose is a swap of strides,
// never a copy). Packed panels and a register-tiled micro-kernel, with the
// widest vector unit the CPU has chosen at run time (AVX-512, AVX2+FMA, or
// portable code). The reference runtime's plain loops stay the oracle.
#pragma once

#include <cstdint>
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

// M x N output, K the contracted size. beta 0 ignores C's old values (NaNs
// included). `threads` splits the work (1: the caller's thread only).
void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, Matrix a, Matrix b,
           float beta, Output c, int threads = 1);

// "avx512", "avx2", "portable": the kernel sgemm uses on this CPU.
const char* sgemm_kernel();

// The kernels this CPU can run, best first, and sgemm with one of them by
// name (the tests run each): an unknown or unsupported name throws
// std::invalid_argument.
std::vector<std::string> sgemm_kernels();
void sgemm_with(const std::string& kernel, std::int64_t m, std::int64_t n, std::int64_t k,
                float alpha, Matrix a, Matrix b, float beta, Output c, int threads = 1);

}  // namespace ss::gemm
