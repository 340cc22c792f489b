// The bfloat16 GEMM kernel for AMX (built with -mavx512f -mavx512bw
// -mavx512bf16 -mamx-tile -mamx-bf16): A and B rounded to bfloat16 as they
// are packed, as the AVX512-BF16 kernel rounds them, and their products
// summed in float32 tiles by tdpbf16ps, 32 k a step. A micro-tile is 2 x 2
// tiles of C, 32 x 32, with two A and two B tiles (eight tile registers in
// all). tdpbf16ps treats subnormal inputs as zero and flushes subnormal
// sums, so values under 2^-126 count as zero.
//
// Packing: k in steps of 32 (16 pairs), a last step padded with zeros, so
// every tile is whole and the tile configuration never changes. An A
// micro-panel is [half][step][16 rows][16 pairs]; a B micro-panel is
// [step][half][16 pairs][16 columns]: each tile 1 KiB in a row, rows 64
// bytes apart.
#include <immintrin.h>

#include "runtime/fast/gemm/kernel_args.hpp"

namespace ss::gemm::detail {
namespace {

constexpr int T = 16;                  // a tile's rows, and its 32-bit columns
constexpr std::int64_t kTile = T * T;  // a tile's pairs
constexpr std::int64_t MR = 2 * T, NR = 2 * T;
constexpr std::int64_t MC = 128, KC = 512, NC = 1024;  // KC: whole steps of 32 k

inline std::int64_t smaller(std::int64_t a, std::int64_t b) {
  return a < b ? a : b;
}

#include "runtime/fast/gemm/bf16_rounding.inc"

// Steps of 32 k in a block of kc.
inline std::int64_t steps(std::int64_t kc) {
  return (kc + 2 * T - 1) / (2 * T);
}

// The tile configuration: palette 1, eight tiles of 16 rows of 64 bytes.
struct alignas(64) TileConfig {
  std::uint8_t palette = 1, start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

void configure_tiles() {
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.colsb[t] = 4 * T;
    config.rows[t] = T;
  }
  _tile_loadconfig(&config);
}

// gcc 12's unpack and shuffle intrinsics start from _mm512_undefined_epi32,
// which -Wuninitialized (-Wmaybe-uninitialized where inlined) takes for a
// read of an uninitialized value.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
// tile[c][r] = block[r][c], 16 x 16 pairs: pairs of rows interleaved
// by 32 and 64 bits, then 128-bit lanes gathered in two rounds.
void transpose(const std::uint32_t* __restrict block, std::uint32_t* __restrict tile) {
  __m512i r[T], t[T];
  for (int i = 0; i < T; ++i) r[i] = _mm512_load_si512(block + i * T);
  for (int i = 0; i < T; i += 2) {
    t[i] = _mm512_unpacklo_epi32(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(r[i], r[i + 1]);
  }
  for (int i = 0; i < T; i += 4) {
    r[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
    r[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
    r[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
    r[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (int h = 0; h < T; h += 8)
    for (int i = 0; i < 4; ++i) {
      t[h + i] = _mm512_shuffle_i32x4(r[h + i], r[h + i + 4], 0x88);
      t[h + i + 4] = _mm512_shuffle_i32x4(r[h + i], r[h + i + 4], 0xdd);
    }
  for (int i = 0; i < 8; ++i) {
    _mm512_storeu_si512(tile + i * T, _mm512_shuffle_i32x4(t[i], t[i + 8], 0x88));
    _mm512_storeu_si512(tile + (i + 8) * T, _mm512_shuffle_i32x4(t[i], t[i + 8], 0xdd));
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// One tile of pairs: `count` items (the rest zeros) `item` apart, each
// its 16 pairs of k (kn values of k, the rest zeros) `step` apart, written
// item-major ([item][pair], an A tile: items are rows) or pair-major
// ([pair][item], a B tile: items are columns). Made in the order the
// layout reads fastest (along k where k is contiguous, across items where
// they are), then turned where that isn't the tile's.
void pairs_tile(const float* base, std::int64_t item, std::int64_t step, std::int64_t count,
                std::int64_t kn, bool item_major, std::uint32_t* __restrict tile) {
  alignas(64) std::uint32_t block[kTile];
  const bool along = step == 1 || item != 1;  // made item-major
  std::uint32_t* out = along == item_major ? tile : block;
  if (step == 1) {  // each item's k in a row
    for (std::int64_t i = 0; i < T; ++i)
      _mm512_storeu_si512(out + i * T,
                          i < count ? pairs_along(base + i * item, kn) : _mm512_setzero_si512());
  } else if (item == 1) {  // each k's items in a row
    for (std::int64_t q = 0; q < T; ++q) {
      const std::int64_t p = 2 * q;
      const float* lo = p < kn ? base + p * step : nullptr;
      const float* hi = p + 1 < kn ? base + (p + 1) * step : nullptr;
      _mm512_storeu_si512(out + q * T, pairs_across(lo, hi, count));
    }
  } else {
    for (std::int64_t i = 0; i < T; ++i)
      for (std::int64_t q = 0; q < T; ++q) {
        const std::int64_t p = 2 * q;
        const float* x = base + i * item + p * step;
        const bool in = i < count;
        out[i * T + q] = pair(in && p < kn ? x[0] : 0.0f, in && p + 1 < kn ? x[step] : 0.0f);
      }
  }
  if (out == block) transpose(block, tile);
}

// One A tile: rows [row, row+rows), k [k0, k0+kn), as [16 rows][16 pairs].
void a_tile(const Args& g, std::int64_t row, std::int64_t rows, std::int64_t k0, std::int64_t kn,
            std::uint32_t* __restrict tile) {
  pairs_tile(g.a + row * g.a_rows + k0 * g.a_cols, g.a_rows, g.a_cols, rows, kn, true, tile);
}

// One B tile: columns [col, col+cols), k [k0, k0+kn), as [16 pairs][16
// columns].
void b_tile(const Args& g, std::int64_t col, std::int64_t cols, std::int64_t k0, std::int64_t kn,
            std::uint32_t* __restrict tile) {
  pairs_tile(g.b + k0 * g.b_rows + col * g.b_cols, g.b_cols, g.b_rows, cols, kn, false, tile);
}

// A's rows [i0, i0+mc), k [p0, p0+kc), as MR-row micro-panels. A half
// panel without rows is left unwritten: the micro-kernel doesn't read it.
void pack_a(const Args& g, std::int64_t i0, std::int64_t mc, std::int64_t p0, std::int64_t kc,
            std::uint32_t* __restrict out) {
  const std::int64_t s_count = steps(kc);
  for (std::int64_t ir = 0; ir < mc; ir += MR, out += MR * s_count * T)
    for (std::int64_t h = 0; h < 2; ++h) {
      const std::int64_t rows = smaller(T, mc - ir - h * T);
      if (rows <= 0) break;
      for (std::int64_t s = 0; s < s_count; ++s)
        a_tile(g, i0 + ir + h * T, rows, p0 + s * 2 * T, smaller(2 * T, kc - s * 2 * T),
               out + (h * s_count + s) * kTile);
    }
}

// B's k [p0, p0+kc), columns [j0, j0+nc), as NR-column micro-panels. A
// half panel without columns is left unwritten, as in pack_a.
void pack_b(const Args& g, std::int64_t p0, std::int64_t kc, std::int64_t j0, std::int64_t nc,
            std::uint32_t* __restrict out) {
  const std::int64_t s_count = steps(kc);
  for (std::int64_t jr = 0; jr < nc; jr += NR, out += NR * s_count * T)
    for (std::int64_t s = 0; s < s_count; ++s)
      for (std::int64_t h = 0; h < 2; ++h) {
        const std::int64_t cols = smaller(T, nc - jr - h * T);
        if (cols <= 0) break;
        b_tile(g, j0 + jr + h * T, cols, p0 + s * 2 * T, smaller(2 * T, kc - s * 2 * T),
               out + (s * 2 + h) * kTile);
      }
}

// The micro-panels' products over s_count steps, in tiles 0 (rows 0-15,
// columns 0-15), 1 (columns 16-31), 2 and 3 (rows 16-31); then C = alpha *
// sum + beta * C where rows and columns exist. Two halves of rows (R2) or
// of columns (C2) only where the micro-tile has them.
template <bool R2, bool C2>
void micro(std::int64_t s_count, const std::uint32_t* a, const std::uint32_t* b, float* c,
           std::int64_t ldc, std::int64_t rows, std::int64_t cols, float alpha, float beta) {
  _tile_zero(0);
  if (C2) _tile_zero(1);
  if (R2) _tile_zero(2);
  if (R2 && C2) _tile_zero(3);
  const std::uint32_t* a2 = a + s_count * kTile;
  for (std::int64_t s = 0; s < s_count; ++s) {
    const std::uint32_t* bs = b + 2 * s * kTile;
    _tile_loadd(4, a + s * kTile, 4 * T);
    _tile_loadd(6, bs, 4 * T);
    _tile_dpbf16ps(0, 4, 6);
    if (C2) {
      _tile_loadd(7, bs + kTile, 4 * T);
      _tile_dpbf16ps(1, 4, 7);
    }
    if (R2) {
      _tile_loadd(5, a2 + s * kTile, 4 * T);
      _tile_dpbf16ps(2, 5, 6);
      if (C2) _tile_dpbf16ps(3, 5, 7);
    }
  }
  alignas(64) float sums[MR * NR];
  _tile_stored(0, sums, 4 * NR);
  if (C2) _tile_stored(1, sums + T, 4 * NR);
  if (R2) _tile_stored(2, sums + T * NR, 4 * NR);
  if (R2 && C2) _tile_stored(3, sums + T * NR + T, 4 * NR);
  const __m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t h = 0; h < 2; ++h) {
      const __mmask16 m = first_lanes(cols - h * T);
      if (!m) break;
      float* out = c + i * ldc + h * T;
      const __m512 scaled = _mm512_mul_ps(_mm512_load_ps(sums + i * NR + h * T), va);
      _mm512_mask_storeu_ps(
          out, m,
          beta == 0.0f ? scaled : _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, out), vb, scaled));
    }
}

// Rows [row_begin, row_end) of A, k [p0, p0+kc), times B's block [p0,
// p0+kc) x [j0, j0+nc), packed.
void block(const Args& g, Tile t, std::int64_t p0, std::int64_t kc, std::int64_t j0,
           std::int64_t nc, std::uint32_t* pa, const std::uint32_t* pb) {
  const std::int64_t s_count = steps(kc);
  const float beta = p0 == 0 ? g.beta : 1.0f;
  for (std::int64_t i0 = t.row_begin; i0 < t.row_end; i0 += MC) {
    const std::int64_t mc = smaller(MC, t.row_end - i0);
    pack_a(g, i0, mc, p0, kc, pa);
    for (std::int64_t jr = 0; jr < nc; jr += NR) {
      const std::int64_t cols = smaller(NR, nc - jr);
      for (std::int64_t ir = 0; ir < mc; ir += MR) {
        const std::int64_t rows = smaller(MR, mc - ir);
        const std::uint32_t* a = pa + ir * s_count * T;
        const std::uint32_t* b = pb + jr * s_count * T;
        float* c = g.c + (i0 + ir) * g.c_rows + j0 + jr;
        if (rows > T && cols > T)
          micro<true, true>(s_count, a, b, c, g.c_rows, rows, cols, g.alpha, beta);
        else if (rows > T)
          micro<true, false>(s_count, a, b, c, g.c_rows, rows, cols, g.alpha, beta);
        else if (cols > T)
          micro<false, true>(s_count, a, b, c, g.c_rows, rows, cols, g.alpha, beta);
        else
          micro<false, false>(s_count, a, b, c, g.c_rows, rows, cols, g.alpha, beta);
      }
    }
  }
}

// A block of kc rows of B packs whole steps of 16 pairs a column.
std::int64_t block_pairs(std::int64_t kc) {
  return steps(kc) * T;
}

#include "runtime/fast/gemm/bf16_blocks.inc"

// The tile registers are the thread's until released, and a thread that
// holds them costs more to switch: each call configures and releases them.
struct Tiles {
  Tiles() { configure_tiles(); }
  ~Tiles() { _tile_release(); }
};

}  // namespace

// The buffers' sizes in floats: a pair of bfloat16 takes one float's room,
// and a block's padded pairs (KC / 2 at most) fit in KC floats.
Blocking blocking_amx_bf16() {
  return {MR, NR, MC, KC, NC};
}

void kernel_amx_bf16(const Args& g, Tile t, float* pack_a, float* pack_b) {
  const Tiles tiles;
  gemm_blocks(g, t, reinterpret_cast<std::uint32_t*>(pack_a),
              reinterpret_cast<std::uint32_t*>(pack_b));
}

std::int64_t packed_floats_amx_bf16(std::int64_t k, std::int64_t n) {
  return packed_floats(k, n);
}

void pack_b_amx_bf16(const Args& g, float* out) {
  pack_b_all(g, out);
}

void kernel_packed_amx_bf16(const Args& g, Tile t, float* pack_a, const float* packed_b) {
  const Tiles tiles;
  gemm_packed(g, t, reinterpret_cast<std::uint32_t*>(pack_a),
              reinterpret_cast<const std::uint32_t*>(packed_b));
}

}  // namespace ss::gemm::detail
