// The bfloat16 GEMM kernel for AVX512-BF16 (built with -mavx512f
// -mavx512bw -mavx512bf16): A and B rounded to bfloat16 (to nearest, ties to even) as
// they are packed, products summed in float32 by vdpbf16ps, two k at a
// time. Its micro-tile is the AVX-512 kernel's, 14 x 32, 28 zmm
// accumulators. vdpbf16ps treats subnormal inputs as zero and flushes
// subnormal sums, so values under 2^-126 count as zero.
#include <immintrin.h>

#include "runtime/fast/gemm/kernel_args.hpp"

namespace ss::gemm::detail {
namespace {

constexpr int W = 16;
constexpr int MR = 14;
constexpr std::int64_t NR = 2 * W;
constexpr std::int64_t MC = 168, KC = 256, NC = 3072;  // KC even: whole pairs of k

inline std::int64_t smaller(std::int64_t a, std::int64_t b) {
  return a < b ? a : b;
}

#include "runtime/fast/gemm/bf16_rounding.inc"

// A's rows [i0, i0+mc), columns [p0, p0+kc), as MR-row micro-panels of
// pairs: for each pair of k, MR pairs; rows and a last k past the end are 0.
void pack_a(const Args& g, std::int64_t i0, std::int64_t mc, std::int64_t p0, std::int64_t kc,
            std::uint32_t* __restrict out) {
  const std::int64_t pairs = (kc + 1) / 2;
  for (std::int64_t ir = 0; ir < mc; ir += MR) {
    const std::int64_t rows = smaller(MR, mc - ir);
    for (std::int64_t i = 0; i < MR; ++i) {
      const float* row = g.a + (i0 + ir + i) * g.a_rows + p0 * g.a_cols;
      for (std::int64_t q = 0; q < pairs; ++q) {
        const std::int64_t p = 2 * q;
        const float lo = i < rows ? row[p * g.a_cols] : 0.0f;
        const float hi = i < rows && p + 1 < kc ? row[(p + 1) * g.a_cols] : 0.0f;
        out[q * MR + i] = pair(lo, hi);
      }
    }
    out += MR * pairs;
  }
}

// B's rows [p0, p0+kc), columns [j0, j0+nc), as NR-column micro-panels of
// pairs: for each pair of k, NR pairs; columns and a last k past the end 0.
void pack_b(const Args& g, std::int64_t p0, std::int64_t kc, std::int64_t j0, std::int64_t nc,
            std::uint32_t* __restrict out) {
  const std::int64_t pairs = (kc + 1) / 2;
  for (std::int64_t jr = 0; jr < nc; jr += NR) {
    const std::int64_t cols = smaller(NR, nc - jr);
    const float* base = g.b + p0 * g.b_rows + (j0 + jr) * g.b_cols;
    for (std::int64_t q = 0; q < pairs; ++q) {
      const std::int64_t p = 2 * q;
      const float* r0 = base + p * g.b_rows;
      const float* r1 = r0 + g.b_rows;
      if (cols == NR && g.b_cols == 1 && p + 1 < kc) {  // whole rows: 16 pairs a conversion
        for (int h = 0; h < 2; ++h)
          _mm512_storeu_si512(out + q * NR + h * W, pairs_across(r0 + h * W, r1 + h * W, W));
        continue;
      }
      for (std::int64_t j = 0; j < NR; ++j) {
        const float lo = j < cols ? r0[j * g.b_cols] : 0.0f;
        const float hi = j < cols && p + 1 < kc ? r1[j * g.b_cols] : 0.0f;
        out[q * NR + j] = pair(lo, hi);
      }
    }
    out += NR * pairs;
  }
}

// acc = the micro-panels' products over `pairs` pairs of k for the first
// R rows (R < MR for a last partial panel, whose rows past R are zeros
// not worth multiplying: a product of one row would do 14 times its work);
// then C = alpha * acc + beta * C where rows and columns exist.
template <int R>
void micro(std::int64_t pairs, const std::uint32_t* __restrict a, const std::uint32_t* __restrict b,
           float* __restrict c, std::int64_t ldc, std::int64_t rows, std::int64_t cols, float alpha,
           float beta) {
  __m512 acc[R][2];
#pragma GCC unroll 32
  for (int i = 0; i < R; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (std::int64_t q = 0; q < pairs; ++q) {
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(b), b1 = (__m512bh)_mm512_loadu_si512(b + W);
#pragma GCC unroll 32
    for (int i = 0; i < R; ++i) {
      const __m512bh ai = (__m512bh)_mm512_set1_epi32(static_cast<int>(a[i]));
      acc[i][0] = _mm512_dpbf16_ps(acc[i][0], ai, b0);
      acc[i][1] = _mm512_dpbf16_ps(acc[i][1], ai, b1);
    }
    a += MR;
    b += NR;
  }
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  if (R == MR && rows == MR && cols == NR) {
#pragma GCC unroll 32
    for (int i = 0; i < R; ++i) {
      float* row = c + i * ldc;
      for (int h = 0; h < 2; ++h) {
        const __m512 scaled = _mm512_mul_ps(acc[i][h], va);
        _mm512_storeu_ps(
            row + h * W,
            beta == 0.0f ? scaled : _mm512_fmadd_ps(_mm512_loadu_ps(row + h * W), vb, scaled));
      }
    }
    return;
  }
  float tile[R * NR];
  for (int i = 0; i < R; ++i) {
    _mm512_storeu_ps(tile + i * NR, acc[i][0]);
    _mm512_storeu_ps(tile + i * NR + W, acc[i][1]);
  }
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      float& out = c[i * ldc + j];
      const float scaled = alpha * tile[i * NR + j];
      out = beta == 0.0f ? scaled : __builtin_fmaf(out, beta, scaled);
    }
}

using Micro = void (*)(std::int64_t, const std::uint32_t*, const std::uint32_t*, float*,
                       std::int64_t, std::int64_t, std::int64_t, float, float);
// kRows[r - 1] computes r rows.
constexpr Micro kRows[MR] = {micro<1>,  micro<2>,  micro<3>,  micro<4>, micro<5>,
                             micro<6>,  micro<7>,  micro<8>,  micro<9>, micro<10>,
                             micro<11>, micro<12>, micro<13>, micro<14>};

// Rows [row_begin, row_end) of A, columns [p0, p0+kc), times B's block
// [p0, p0+kc) x [j0, j0+nc), packed: MR x NR micro-tiles.
void block(const Args& g, Tile t, std::int64_t p0, std::int64_t kc, std::int64_t j0,
           std::int64_t nc, std::uint32_t* pa, const std::uint32_t* pb) {
  const std::int64_t pairs = (kc + 1) / 2;
  const float beta = p0 == 0 ? g.beta : 1.0f;
  for (std::int64_t i0 = t.row_begin; i0 < t.row_end; i0 += MC) {
    const std::int64_t mc = smaller(MC, t.row_end - i0);
    pack_a(g, i0, mc, p0, kc, pa);
    for (std::int64_t jr = 0; jr < nc; jr += NR)
      for (std::int64_t ir = 0; ir < mc; ir += MR) {
        const std::int64_t rows = smaller(MR, mc - ir);
        kRows[rows - 1](pairs, pa + ir * pairs, pb + jr * pairs,
                        g.c + (i0 + ir) * g.c_rows + j0 + jr, g.c_rows, rows, smaller(NR, nc - jr),
                        g.alpha, beta);
      }
  }
}

// A block of kc rows of B packs (kc + 1) / 2 pairs a column.
std::int64_t block_pairs(std::int64_t kc) {
  return (kc + 1) / 2;
}

#include "runtime/fast/gemm/bf16_blocks.inc"

}  // namespace

// The buffers' sizes in floats: a pair of bfloat16 takes one float's room.
Blocking blocking_avx512_bf16() {
  return {MR, NR, MC, KC, NC};
}

void kernel_avx512_bf16(const Args& g, Tile t, float* pack_a, float* pack_b) {
  gemm_blocks(g, t, reinterpret_cast<std::uint32_t*>(pack_a),
              reinterpret_cast<std::uint32_t*>(pack_b));
}

std::int64_t packed_floats_avx512_bf16(std::int64_t k, std::int64_t n) {
  return packed_floats(k, n);
}

void pack_b_avx512_bf16(const Args& g, float* out) {
  pack_b_all(g, out);
}

void kernel_packed_avx512_bf16(const Args& g, Tile t, float* pack_a, const float* packed_b) {
  gemm_packed(g, t, reinterpret_cast<std::uint32_t*>(pack_a),
              reinterpret_cast<const std::uint32_t*>(packed_b));
}

}  // namespace ss::gemm::detail
