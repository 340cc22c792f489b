// What sgemm.cpp hands the kernels compiled for one instruction set each
// (sgemm_avx2.cpp, sgemm_avx512.cpp, sgemm_portable.cpp). Plain data, and
// nothing from the standard library: those files are built with
// instruction-set flags, and an inline function they shared with the rest
// of the program could be merged into a copy that the CPU can't run.
#pragma once

#include <cstdint>

namespace ss::gemm::detail {

struct Args {
  std::int64_t m, n, k;
  float alpha, beta;
  const float* a;
  std::int64_t a_rows, a_cols;  // strides
  const float* b;
  std::int64_t b_rows, b_cols;
  float* c;
  std::int64_t c_rows;
  // The epilogue (sgemm.hpp's Epilogue) the float32 kernels apply as they
  // store each element's last sum: bias by column (or null), then ReLU.
  const float* bias;
  int relu;
};

// The blocking each kernel wants, so the caller can size its buffers.
struct Blocking {
  std::int64_t mr, nr, mc, kc, nc;
};

// The rows and columns of C one call computes.
struct Tile {
  std::int64_t row_begin, row_end, col_begin, col_end;
};

// Each computes one tile of C with buffers of mc*kc and kc*nc floats
// (rounded up to whole micro-panels), 64-byte aligned.
using Kernel = void (*)(const Args& args, Tile tile, float* pack_a, float* pack_b);

// One row of A (m = 1): a vector times B, without packing.
using Gemv = void (*)(const Args& args);

// B packed once for many products (a resident weight): how many floats
// its whole packing takes, the packing (of args' B), and a tile computed
// from it (the tile spans every column).
using PackedFloats = std::int64_t (*)(std::int64_t k, std::int64_t n);
using PackB = void (*)(const Args& args, float* out);
using KernelPacked = void (*)(const Args& args, Tile tile, float* pack_a, const float* packed_b);

Blocking blocking_avx2();
void kernel_avx2(const Args& args, Tile tile, float* pack_a, float* pack_b);
void gemv_avx2(const Args& args);
std::int64_t packed_floats_avx2(std::int64_t k, std::int64_t n);
void pack_b_avx2(const Args& args, float* out);
void kernel_packed_avx2(const Args& args, Tile tile, float* pack_a, const float* packed_b);
Blocking blocking_avx512();
void kernel_avx512(const Args& args, Tile tile, float* pack_a, float* pack_b);
void gemv_avx512(const Args& args);
std::int64_t packed_floats_avx512(std::int64_t k, std::int64_t n);
void pack_b_avx512(const Args& args, float* out);
void kernel_packed_avx512(const Args& args, Tile tile, float* pack_a, const float* packed_b);
Blocking blocking_avx512_bf16();
void kernel_avx512_bf16(const Args& args, Tile tile, float* pack_a, float* pack_b);
std::int64_t packed_floats_avx512_bf16(std::int64_t k, std::int64_t n);
void pack_b_avx512_bf16(const Args& args, float* out);
void kernel_packed_avx512_bf16(const Args& args, Tile tile, float* pack_a, const float* packed_b);
Blocking blocking_amx_bf16();
void kernel_amx_bf16(const Args& args, Tile tile, float* pack_a, float* pack_b);
std::int64_t packed_floats_amx_bf16(std::int64_t k, std::int64_t n);
void pack_b_amx_bf16(const Args& args, float* out);
void kernel_packed_amx_bf16(const Args& args, Tile tile, float* pack_a, const float* packed_b);
Blocking blocking_portable();
void kernel_portable(const Args& args, Tile tile, float* pack_a, float* pack_b);
void gemv_portable(const Args& args);
std::int64_t packed_floats_portable(std::int64_t k, std::int64_t n);
void pack_b_portable(const Args& args, float* out);
void kernel_packed_portable(const Args& args, Tile tile, float* pack_a, const float* packed_b);
// The portable numerics' kernels (sgemm_chain_*.cpp): alpha 1, beta 0 or 1
// (1 continues each element's chain from C).
Blocking blocking_chain_avx512();
void kernel_chain_avx512(const Args& args, Tile tile, float* pack_a, float* pack_b);
void gemv_chain_avx512(const Args& args);
std::int64_t packed_floats_chain_avx512(std::int64_t k, std::int64_t n);
void pack_b_chain_avx512(const Args& args, float* out);
void kernel_packed_chain_avx512(const Args& args, Tile tile, float* pack_a, const float* packed_b);
Blocking blocking_chain_avx2();
void kernel_chain_avx2(const Args& args, Tile tile, float* pack_a, float* pack_b);
void gemv_chain_avx2(const Args& args);
std::int64_t packed_floats_chain_avx2(std::int64_t k, std::int64_t n);
void pack_b_chain_avx2(const Args& args, float* out);
void kernel_packed_chain_avx2(const Args& args, Tile tile, float* pack_a, const float* packed_b);
Blocking blocking_chain_scalar();
void kernel_chain_scalar(const Args& args, Tile tile, float* pack_a, float* pack_b);
void gemv_chain_scalar(const Args& args);
std::int64_t packed_floats_chain_scalar(std::int64_t k, std::int64_t n);
void pack_b_chain_scalar(const Args& args, float* out);
void kernel_packed_chain_scalar(const Args& args, Tile tile, float* pack_a, const float* packed_b);

}  // namespace ss::gemm::detail
