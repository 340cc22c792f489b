// The fast executor's float32 loops: elementwise unary and binary work
// (broadcasting by strides), reductions over leading or trailing axes,
// causal masks, casts to float and einops copies, with the reference's
// bits; softmax, log_softmax and logsumexp through float32 vector exps,
// within docs/numerics.md's `fast` row. Each
// returns false for what it doesn't take, leaving the node to the
// reference. `threads` splits the costlier loops (runtime/core/helper_threads).
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.hpp"
#include "ir/ops.hpp"
#include "runtime/core/tensor.hpp"
#include "runtime/reference/nodes.hpp"

namespace ss::runtime::fast {

// Elements a thread's share of an elementwise loop or reduction should have
// at least: below it, waking a helper costs more than it saves.
constexpr std::int64_t kMinElements = 1 << 15;

// Elementwise work on float32, with the reference's bits: +, -, *, / and
// sqrt in float are what the reference's double arithmetic rounds to (a
// double holds the exact result of one such operation to well past float's
// precision); everything else calls the reference's scalar function.

// out[j] = f(a[j * sa], b[j * sb]) for j < count.
template <typename F>
void each_pair(std::int64_t count, const float* a, std::int64_t sa, const float* b, std::int64_t sb,
               float* out, F f) {
  // The common strides get loops of their own, which the compiler vectorises.
  if (sa == 1 && sb == 1)
    for (std::int64_t j = 0; j < count; ++j) out[j] = f(a[j], b[j]);
  else if (sa == 1 && sb == 0)
    for (std::int64_t j = 0; j < count; ++j) out[j] = f(a[j], b[0]);
  else if (sa == 0 && sb == 1)
    for (std::int64_t j = 0; j < count; ++j) out[j] = f(a[0], b[j]);
  else
    for (std::int64_t j = 0; j < count; ++j) out[j] = f(a[j * sa], b[j * sb]);
}

// run(f) with f the float function of + - * / (binary_f32's, and a loop's
// planned steps'); false, running nothing, for another op.
template <typename Run>
bool with_arithmetic(ir::Binary op, Run run) {
  switch (op) {
    case ir::Binary::add:
      return run([](float x, float y) { return x + y; }), true;
    case ir::Binary::sub:
      return run([](float x, float y) { return x - y; }), true;
    case ir::Binary::mul:
      return run([](float x, float y) { return x * y; }), true;
    case ir::Binary::div:
      return run([](float x, float y) { return x / y; }), true;
    default:
      return false;
  }
}

// The same for the unary ops exact in float: -x, relu (NaN gives 0, as the
// reference's x > 0 test does) and sqrt.
template <typename Run>
bool with_exact_unary(ir::Unary op, Run run) {
  switch (op) {
    case ir::Unary::neg:
      return run([](float x) { return -x; }), true;
    case ir::Unary::relu:
      return run([](float x) { return x > 0 ? x : 0.0f; }), true;
    case ir::Unary::sqrt:
      return run([](float x) { return std::sqrt(x); }), true;
    default:
      return false;
  }
}

// Two operands broadcast to `shape`, a row of its last axis at a time, for
// a loop of its own: f(k, a_offset, a_step, b_offset, b_step, count) for the
// row starting at output element k (offsets and steps in elements, by the
// operands' strides, 0 where one broadcasts).
template <typename F>
void each_broadcast_row(const Shape& shape, const Tensor& a, const Tensor& b, F f) {
  const std::size_t rank = shape.size();
  if (rank == 0) return f(0, 0, 0, 0, 0, std::int64_t{1});
  const Strides sa = broadcast_strides(a, rank), sb = broadcast_strides(b, rank);
  const std::int64_t inner = shape[rank - 1];
  if (inner == 0) return;
  Shape index(rank - 1, 0);
  std::int64_t oa = 0, ob = 0;
  for (std::int64_t k = 0, n = element_count(shape); k < n; k += inner) {
    f(k, oa, sa[rank - 1], ob, sb[rank - 1], inner);
    for (std::size_t d = rank - 1; d-- > 0;) {
      oa += sa[d];
      ob += sb[d];
      if (++index[d] < shape[d]) break;
      oa -= sa[d] * shape[d];
      ob -= sb[d] * shape[d];
      index[d] = 0;
    }
  }
}

// Float unary work, and logical_not on bools.
// `portable` (Numerics::portable): a function that isn't exact runs the
// JIT's portable steps (fast/portable/portable_steps), not the formula in
// double through libm.
bool unary_f32(ir::Unary op, const Tensor& x, Tensor& out, int threads, bool portable = false);
// Float binary work, broadcast.
bool binary_f32(ir::Binary op, const Tensor& a, const Tensor& b, Tensor& out,
                bool portable = false);
// Sums, means, maxima, minima, logsumexp, var and std of floats.
// `portable` (Numerics::portable, here and below): logsumexp's exps and
// log as runtime/fast/portable's, the same bits on every CPU.
bool reduce_f32(ir::Reduce op, const Tensor& x, const std::vector<std::int64_t>& axes, bool keep,
                Tensor& out, int threads, bool portable = false);
// One contiguous group of a trailing reduction.
float reduce_row(ir::Reduce op, const float* row, std::int64_t group, bool portable = false);
// A row's sum, and its squared distances from `mean` summed: in doubles,
// eight lanes added pairwise at the end (the `fast` row of a sum in order).
double sum_row(const float* row, std::int64_t group);
double squares_row(const float* row, std::int64_t group, double mean);

// softmax (or log_softmax) of an f32 value along its last axis, one row at
// a time while it is in cache: exp(x - the row's max) once, as float32
// vectors, then divided by their sum (or x - max - log(sum)). A row with no
// finite max takes the reference's arithmetic (its NaNs and zeros).
bool softmax_rows(const Tensor& x, bool log, Tensor& out, int threads, bool portable = false);
bool causal(const Tensor& x, Tensor& out);
bool cast_to_f32(const Tensor& x, Tensor& out);
// An einops node: a rearrange, a repeat or a reduction.
bool rearrange(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values,
               const std::map<std::string, std::int64_t>& sizes, const Dims& dims);

}  // namespace ss::runtime::fast
