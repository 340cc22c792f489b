// exp of float32 rows for the fast executor's own loops (softmax,
// log_softmax, logsumexp, cross-entropy): SLEEF's 1-ulp vector expf for the
// widest vector the CPU has (AVX-512 or AVX2 with FMA), opened at run time
// from libsleef.so.3 as the JIT's kernels open it; std::exp of a float
// elsewhere. A row's last partial vector is padded, so every element goes
// through the same function wherever it sits: the same bits for any split.
#pragma once

#include <cstdint>

namespace ss::runtime::fast {

// Eight lanes' sum in one fixed order, ((0+4)+(1+5))+((2+6)+(3+7)): what
// the row sums here and in fast_loops end with.
template <typename T>
T add_lanes(const T (&lane)[8]) {
  return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

// The sum of term(x) over a row, in doubles, in eight lanes (element g in
// lane g % 8) added pairwise at the end (add_lanes): the compiler runs the
// lanes as vectors, where one running sum waits on each add. Within the
// `fast` row of the reference's sum in order, and the same bits for the
// same row. (Always inlined: into an AVX-512 caller, it is AVX-512 code.)
template <typename F>
[[gnu::always_inline]] inline double lane_sum(const float* row, std::int64_t group, F term) {
  double lane[8] = {};
  std::int64_t g = 0;
  for (; g + 8 <= group; g += 8)
    for (int k = 0; k < 8; ++k) lane[k] += term(static_cast<double>(row[g + k]));
  for (int k = 0; g < group; ++g, ++k) lane[k] += term(static_cast<double>(row[g]));
  return add_lanes(lane);
}

// out[i] = exp(in[i] - shift) for i < n (out may be in), and their sum, in
// float lanes added in a fixed order. `shift` is finite.
float exp_sum(const float* in, float shift, float* out, std::int64_t n);

// exp_sum(row, shift[r], row, n) for `rows` rows (row r at x + r *
// stride), in place, into sums[r]: the same bits, the rows' vectors
// computed together (attention's rows of scores).
void exp_sum_rows(float* x, std::int64_t stride, int rows, const float* shift, std::int64_t n,
                  float* sums);

// The largest of n floats as `peak < x ? x : peak` from -inf finds it (a
// NaN never taken), in vectors where the CPU has AVX2.
float row_max(const float* x, std::int64_t n);

// "sleef avx512f", "sleef avx2" or "libm": what exp_sum runs on.
const char* vector_exp_name();

}  // namespace ss::runtime::fast
