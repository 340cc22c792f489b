// Fused attention on CUDA (ir/attention.hpp's node and its gradient), flash-
// style: no [i j] matrix is ever kept. CUDA C for NVRTC, embedded in the
// library at build time (kernels/CMakeLists.txt), and compiled by the host's
// compiler in tests/kernels/cuda_attention_test.cpp, which runs it on the CPU
// through tests/support/cuda_on_host.hpp to check its values here.
//
// A thread a query row (forward, and the gradient's dq) or a key row (dk,
// dv), kSsRows rows a block; the other side's rows pass through shared
// memory kSsTile at a time, every thread of the block reading each
// element there. H is the head's padded width (32, 64 or 128: the rows
// held in registers); q and k contract over d <= H, v's rows are e <= H.
// Causal tiles no row of a block sees are skipped whole. Every sum runs
// in one order, and no value goes through atomics: the bits repeat.
//
// Non-finite scores follow the composition (softmax as exp(s - logsumexp
// s), its gradient as autodiff writes it): a row whose scores hold NaN or
// +inf, or are all -inf, is NaN; its log-sum is NaN, +inf or -inf, from
// which the gradients' NaNs follow as the composition's do, the pairs a
// causal mask hides included (a position with such a row skips no tile).
// Like the CPU's kernels, they don't follow it where k or v alone isn't
// finite at keys a row's mask hides (the composition's 0 * inf there).
#ifndef SS_ATTENTION_KERNELS
#define SS_ATTENTION_KERNELS

// NVRTC unrolls the loops over a row's H elements, so a row stays in
// registers; the host's compiler (the tests) takes them as they are.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define SS_UNROLL _Pragma("unroll")
#else
#define SS_UNROLL
#endif

#define kSsRows 64
#define kSsTile 32

// The host's AttentionArgs (kernels/cuda_attention.hpp), field for field.
struct SsAttentionArgs {
  long long ti, tj, d, e, positions;
  long long q_i, q_d, k_j, k_d, v_j, v_e, o_i, o_e;  // o: the output, or dout
  long long gq_i, gq_d, gk_j, gk_d, gv_j, gv_e;
  long long size[8];  // the batch letters' sizes (row-major over them)
  long long q_b[8], k_b[8], v_b[8], o_b[8], gq_b[8], gk_b[8], gv_b[8];
  int batches, causal, divide, unused;
};

struct SsAttentionAt {
  long long q, k, v, o, gq, gk, gv;
};

__device__ __forceinline__ SsAttentionAt ss_attention_at(const SsAttentionArgs& a, long long p) {
  SsAttentionAt r = {0, 0, 0, 0, 0, 0, 0};
  for (int b = a.batches - 1; b >= 0; --b) {
    const long long n = a.size[b], x = p % n;
    p /= n;
    r.q += x * a.q_b[b];
    r.k += x * a.k_b[b];
    r.v += x * a.v_b[b];
    r.o += x * a.o_b[b];
    r.gq += x * a.gq_b[b];
    r.gk += x * a.gk_b[b];
    r.gv += x * a.gv_b[b];
  }
  return r;
}

// The scores' factor: the scale, its reciprocal for a divide, or 1.
__device__ __forceinline__ float ss_attention_factor(const float* scale, int divide) {
  if (scale == 0) return 1.0f;
  return divide ? 1.0f / *scale : *scale;
}

__device__ __forceinline__ float ss_attention_nan() {
  return __int_as_float(0x7fc00000);
}
__device__ __forceinline__ float ss_attention_minus_inf() {
  return __int_as_float((int)0xff800000);
}

// The last key row `row` sees, plus one.
__device__ __forceinline__ long long ss_seen(const SsAttentionArgs& a, long long row) {
  return a.causal ? (row + 1 < a.tj ? row + 1 : a.tj) : a.tj;
}

// n rows of x (from `first`, each `width` wide) into a [kSsTile][H] tile,
// zeros past width; every thread of the block takes its share.
template <int H>
__device__ __forceinline__ void ss_tile(float (*tile)[H], const float* x, long long first, int n,
                                        long long row_step, long long col_step, long long width) {
  for (int at = threadIdx.x; at < kSsTile * H; at += blockDim.x) {
    const int r = at / H, c = at % H;
    tile[r][c] = r < n && c < width ? x[(first + r) * row_step + c * col_step] : 0.0f;
  }
}

template <int H>
__device__ __forceinline__ float ss_dot(const float* x, const float* y) {
  float s = 0.0f;
  SS_UNROLL
  for (int c = 0; c < H; ++c) s += x[c] * y[c];
  return s;
}

// Calls key(j) for each key query row `row` sees (ks[j] and vs[j] its k
// and v), tile by tile through shared memory. Every thread of the block
// calls it (the tiles are shared); `live` says whether this one has a row.
// The tiles end at the last key any row of the block (row0 on) sees.
template <int H, typename Key>
__device__ __forceinline__ void ss_each_key(const SsAttentionArgs& a, const float* k,
                                            const float* v, long long row0, long long row,
                                            bool live, float (*ks)[H], float (*vs)[H], Key key) {
  const long long last = (row0 + kSsRows < a.ti ? row0 + kSsRows : a.ti) - 1;
  const long long cols = ss_seen(a, last), seen = ss_seen(a, row);
  for (long long c0 = 0; c0 < cols; c0 += kSsTile) {
    const int n = (int)(cols - c0 < kSsTile ? cols - c0 : kSsTile);
    __syncthreads();
    ss_tile<H>(ks, k, c0, n, a.k_j, a.k_d, a.d);
    ss_tile<H>(vs, v, c0, n, a.v_j, a.v_e, a.e);
    __syncthreads();
    if (!live) continue;
    const int valid = (int)(seen - c0 < n ? (seen - c0 > 0 ? seen - c0 : 0) : n);
    for (int j = 0; j < valid; ++j) key(j);
  }
}

// One query row's pass over its keys: the online softmax's running max and
// sum, and acc = the sum of exp(s - max) v (divide by the sum for the
// output). Every thread of the block calls it; `live` says whether this
// one has a row. False: the row is NaN, and lse the composition's log-sum
// (NaN for a NaN score, else +inf for a +inf one, else -inf: every score
// -inf); true: lse = max + log(sum).
template <int H>
__device__ bool ss_attention_row(const SsAttentionArgs& a, const float* k, const float* v,
                                 float factor, long long row0, long long row, bool live,
                                 const float* qr, float* acc, float& total, float& lse,
                                 float (*ks)[H], float (*vs)[H]) {
  float peak = ss_attention_minus_inf();
  total = 0.0f;
  bool nan = false, infinite = false;
  SS_UNROLL
  for (int c = 0; c < H; ++c) acc[c] = 0.0f;
  ss_each_key<H>(a, k, v, row0, row, live, ks, vs, [&](int j) {
    const float s = ss_dot<H>(qr, ks[j]) * factor;
    if (s != s) {
      nan = true;
      return;
    }
    if (s == -ss_attention_minus_inf()) {
      infinite = true;
      return;
    }
    if (s == ss_attention_minus_inf()) return;  // its weight is 0
    if (s > peak) {  // rescale what the row has summed (0 at its first key)
      const float shrink = expf(peak - s);
      total *= shrink;
      SS_UNROLL
      for (int c = 0; c < H; ++c) acc[c] *= shrink;
      peak = s;
    }
    const float w = expf(s - peak);
    total += w;
    SS_UNROLL
    for (int c = 0; c < H; ++c) acc[c] += w * vs[j][c];
  });
  const bool ok = !nan && !infinite && total > 0.0f;
  lse = ok         ? peak + logf(total)
        : nan      ? ss_attention_nan()
        : infinite ? -ss_attention_minus_inf()
                   : ss_attention_minus_inf();
  return ok;
}

// q [i d] and the block's query rows into registers (zeros past d).
template <int H>
__device__ __forceinline__ void ss_row(const float* x, long long row, long long row_step,
                                       long long col_step, long long width, bool live, float* r) {
  SS_UNROLL
  for (int c = 0; c < H; ++c) r[c] = live && c < width ? x[row * row_step + c * col_step] : 0.0f;
}

// out[i e] for kSsRows query rows a block (blockIdx.x), positions along y.
template <int H>
__device__ void ss_attention_forward(const float* __restrict__ q, const float* __restrict__ k,
                                     const float* __restrict__ v, const float* __restrict__ scale,
                                     float* __restrict__ out, SsAttentionArgs a) {
  __shared__ float ks[kSsTile][H], vs[kSsTile][H];
  const float factor = ss_attention_factor(scale, a.divide);
  const long long row0 = (long long)blockIdx.x * kSsRows, row = row0 + threadIdx.x;
  const bool live = row < a.ti;
  for (long long p = blockIdx.y; p < a.positions; p += gridDim.y) {
    const SsAttentionAt at = ss_attention_at(a, p);
    float qr[H], acc[H], total, lse;
    ss_row<H>(q + at.q, row, a.q_i, a.q_d, a.d, live, qr);
    const bool ok = ss_attention_row<H>(a, k + at.k, v + at.v, factor, row0, row, live, qr, acc,
                                        total, lse, ks, vs);
    if (!live) continue;
    SS_UNROLL  // a constant index each: acc stays in registers
        for (int c = 0; c < H; ++c) if (c < a.e) out[at.o + row * a.o_i + c * a.o_e] =
            ok ? acc[c] / total : ss_attention_nan();
  }
}

// The gradient's first half, a thread a query row: the row's probabilities'
// log-sum (stats[2 row]) and D = dout . out (stats[2 row + 1]), then
// dq = factor * sum_j p (dout . v_j - D) k_j, over the keys again. A row
// that isn't finite sets its position's flag, after the rows' stats.
template <int H>
__device__ void ss_attention_dq(const float* __restrict__ q, const float* __restrict__ k,
                                const float* __restrict__ v, const float* __restrict__ scale,
                                const float* __restrict__ dout, float* __restrict__ dq,
                                float* __restrict__ stats, SsAttentionArgs a) {
  __shared__ float ks[kSsTile][H], vs[kSsTile][H];
  const float factor = ss_attention_factor(scale, a.divide);
  const long long row0 = (long long)blockIdx.x * kSsRows, row = row0 + threadIdx.x;
  const bool live = row < a.ti;
  for (long long p = blockIdx.y; p < a.positions; p += gridDim.y) {
    const SsAttentionAt at = ss_attention_at(a, p);
    float qr[H], acc[H], gr[H], total, lse;
    ss_row<H>(q + at.q, row, a.q_i, a.q_d, a.d, live, qr);
    ss_row<H>(dout + at.o, row, a.o_i, a.o_e, a.e, live, gr);
    const bool ok = ss_attention_row<H>(a, k + at.k, v + at.v, factor, row0, row, live, qr, acc,
                                        total, lse, ks, vs);
    float dsum = 0.0f;
    SS_UNROLL
    for (int c = 0; c < H; ++c) dsum += gr[c] * (ok ? acc[c] / total : 0.0f);
    if (!ok) dsum = ss_attention_nan();
    if (live) {
      stats[2 * (p * a.ti + row)] = lse;
      stats[2 * (p * a.ti + row) + 1] = dsum;
      if (!ok) stats[2 * a.positions * a.ti + p] = 1.0f;  // the position's flag (zeroed first)
    }
    SS_UNROLL
    for (int c = 0; c < H; ++c) acc[c] = 0.0f;  // now dq
    ss_each_key<H>(a, k + at.k, v + at.v, row0, row, live, ks, vs, [&](int j) {
      const float pj = expf(ss_dot<H>(qr, ks[j]) * factor - lse);
      const float ds = pj * (ss_dot<H>(gr, vs[j]) - dsum) * factor;
      SS_UNROLL
      for (int c = 0; c < H; ++c) acc[c] += ds * ks[j][c];
    });
    if (!live) continue;
    SS_UNROLL
    for (int c = 0; c < H; ++c)
      if (c < a.d) dq[at.gq + row * a.gq_i + c * a.gq_d] = acc[c];
  }
}

// The gradient's second half, a thread a key row: dv = sum_i p dout_i and
// dk = factor * sum_i p (dout_i . v - D_i) q_i over the query rows that see
// it, from the first half's stats; tiles of rows before a block's first
// key are skipped (causal).
template <int H>
__device__ void ss_attention_dkv(const float* __restrict__ q, const float* __restrict__ k,
                                 const float* __restrict__ v, const float* __restrict__ scale,
                                 const float* __restrict__ dout, const float* __restrict__ stats,
                                 float* __restrict__ dk, float* __restrict__ dv,
                                 SsAttentionArgs a) {
  __shared__ float qs[kSsTile][H], gs[kSsTile][H], ls[kSsTile][2];
  const float factor = ss_attention_factor(scale, a.divide);
  const long long key0 = (long long)blockIdx.x * kSsRows, key = key0 + threadIdx.x;
  const bool live = key < a.tj;
  for (long long p = blockIdx.y; p < a.positions; p += gridDim.y) {
    const SsAttentionAt at = ss_attention_at(a, p);
    float kr[H], vr[H], gk[H], gv[H];
    ss_row<H>(k + at.k, key, a.k_j, a.k_d, a.d, live, kr);
    ss_row<H>(v + at.v, key, a.v_j, a.v_e, a.e, live, vr);
    SS_UNROLL
    for (int c = 0; c < H; ++c) gk[c] = gv[c] = 0.0f;
    // Rows before a block's first key see none of its keys: skipped, unless
    // a row of the position isn't finite (then masked pairs may be NaN).
    const bool flagged = stats[2 * a.positions * a.ti + p] != 0.0f;
    for (long long r0 = a.causal && !flagged ? key0 : 0; r0 < a.ti; r0 += kSsTile) {
      const int n = (int)(a.ti - r0 < kSsTile ? a.ti - r0 : kSsTile);
      __syncthreads();
      ss_tile<H>(qs, q + at.q, r0, n, a.q_i, a.q_d, a.d);
      ss_tile<H>(gs, dout + at.o, r0, n, a.o_i, a.o_e, a.e);
      for (int at2 = threadIdx.x; at2 < 2 * n; at2 += blockDim.x)
        ls[at2 / 2][at2 % 2] = stats[2 * (p * a.ti + r0) + at2];
      __syncthreads();
      if (!live) continue;
      for (int r = 0; r < n; ++r) {
        if (a.causal && key > r0 + r) {
          // Masked, as the composition's gradient has it: its p is
          // exp(-inf - lse) (NaN where lse is -inf or NaN), and causal's
          // gradient zeroes its ds (0 q: NaN where q isn't finite).
          if (!flagged) continue;
          const float pm = expf(ss_attention_minus_inf() - ls[r][0]);
          SS_UNROLL
          for (int c = 0; c < H; ++c) {
            gv[c] += pm * gs[r][c];
            gk[c] += 0.0f * qs[r][c];
          }
          continue;
        }
        const float pr = expf(ss_dot<H>(qs[r], kr) * factor - ls[r][0]);
        const float ds = pr * (ss_dot<H>(gs[r], vr) - ls[r][1]) * factor;
        SS_UNROLL
        for (int c = 0; c < H; ++c) {
          gv[c] += pr * gs[r][c];
          gk[c] += ds * qs[r][c];
        }
      }
    }
    if (!live) continue;
    SS_UNROLL
    for (int c = 0; c < H; ++c) {
      if (c < a.d) dk[at.gk + key * a.gk_j + c * a.gk_d] = gk[c];
      if (c < a.e) dv[at.gv + key * a.gv_j + c * a.gv_e] = gv[c];
    }
  }
}

// The entry points, one per source: the host appends the one it needs
// (kernels/cuda_attention.cpp), so NVRTC compiles one width of one kernel.
#define SS_ATTENTION_FORWARD(H)                                                           \
  extern "C" __global__ void ss_attention_forward_##H(const float* q, const float* k,     \
                                                      const float* v, const float* scale, \
                                                      float* out, SsAttentionArgs a) {    \
    ss_attention_forward<H>(q, k, v, scale, out, a);                                      \
  }
#define SS_ATTENTION_DQ(H)                                                                         \
  extern "C" __global__ void ss_attention_dq_##H(const float* q, const float* k, const float* v,   \
                                                 const float* scale, const float* dout, float* dq, \
                                                 float* stats, SsAttentionArgs a) {                \
    ss_attention_dq<H>(q, k, v, scale, dout, dq, stats, a);                                        \
  }
#define SS_ATTENTION_DKV(H)                                                                  \
  extern "C" __global__ void ss_attention_dkv_##H(                                           \
      const float* q, const float* k, const float* v, const float* scale, const float* dout, \
      const float* stats, float* dk, float* dv, SsAttentionArgs a) {                         \
    ss_attention_dkv<H>(q, k, v, scale, dout, stats, dk, dv, a);                             \
  }

#endif
