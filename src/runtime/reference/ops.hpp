// The reference runtime's operations: plain loops written for obvious
// correctness, computing in double and storing in the result's dtype. They
// are the oracle every faster executor is tested against. Inputs are
// trusted to be well-typed (the checker saw to it); a shape that can't be
// is an InternalError, a value out of its Index range a RangeError.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/attributes.hpp"
#include "ir/ops.hpp"
#include "runtime/core/internal_error.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime::reference {

// A value outside an Index[C] range: a gather's index or label.
struct RangeError : std::runtime_error {
  RangeError(std::int64_t value, std::int64_t bound, std::int64_t position);
  std::int64_t value, bound, position;
};

// The operations' kinds are the IR's (ir/ops.hpp): one list for every executor.
using ir::Binary;
using ir::Reduce;
using ir::Unary;

// numpy's broadcasting: shapes aligned from the right, size 1 stretches.
Shape broadcast_shapes(const Shape& a, const Shape& b);

// What binary(op, a, b) gives: bool for comparisons and logic, f32 for a
// division of integers, else the operands' common type.
DType binary_dtype(Binary op, DType a, DType b);

// A unary function's result type (types/unary.def's `result`).
DType unary_dtype(Unary op, DType x);
Tensor unary(Unary op, const Tensor& x);
// Arithmetic keeps the operands' dtype (a float over an integer, f32 over
// two different floats); `div` of integers gives f32; comparisons and
// logic give bool.
Tensor binary(Binary op, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor cast(const Tensor& x, DType to);

// numpy's tensordot(a, b, axes=1): a's last axis with b's first.
Tensor matmul(const Tensor& a, const Tensor& b);

// Reduces the listed axes (each in [0, rank)); keep leaves them as size 1.
// sum of bools and mean, var, std, logsumexp of integers give f32; var and
// std are the population's (numpy's ddof=0).
Tensor reduce(Reduce op, const Tensor& x, const std::vector<std::int64_t>& axes, bool keep);
// The first maximum's index along the axis, as i32.
Tensor argmax(const Tensor& x, std::int64_t axis, bool keep);
Tensor softmax(const Tensor& x, std::int64_t axis);
Tensor log_softmax(const Tensor& x, std::int64_t axis);
// The mean, over every other position, of logsumexp(logits) - logits[label]
// along `axis`; labels have the logits' shape without it. A scalar f32.
// The mean over the other positions; with `sum`, their sum (a worker's part).
Tensor cross_entropy(const Tensor& logits, const Tensor& labels, std::int64_t axis,
                     bool sum = false);
// Entries above the diagonal of the last two axes become -inf.
Tensor causal(const Tensor& x);
// table[ids]: rows of the table's first axis; the result's shape is the
// ids' followed by the table's remaining axes.
Tensor gather(const Tensor& table, const Tensor& ids);
// x[axis=index]: the axis removed; a negative index counts from the end.
Tensor take(const Tensor& x, std::int64_t axis, std::int64_t index);

// einops, by names: x's elementary axes `in` ("" for a size-1 axis), each of
// size `sizes[name]`, become the output's groups of names (an empty group
// is a size-1 axis). Names missing from the output are reduced with `op`;
// names only in the output are repeated.
Tensor einops(const Tensor& x, const std::vector<std::string>& in,
              const std::vector<std::vector<std::string>>& out,
              const std::map<std::string, std::int64_t>& sizes, std::optional<Reduce> op);
// einsum by names: the product of the inputs, summed over every name that
// isn't in the output.
Tensor einsum(const std::vector<Tensor>& xs, const std::vector<std::vector<std::string>>& in,
              const std::vector<std::string>& out);

// Along one axis: a stable ascending sort, the indices that sort (i32),
// and the two normalisations (without learnt scale; eps from the node, 1e-5 unless `eps=`).
Tensor sort(const Tensor& x, std::int64_t axis);
Tensor argsort(const Tensor& x, std::int64_t axis);
Tensor layer_norm(const Tensor& x, std::int64_t axis, double eps);
Tensor rms_norm(const Tensor& x, std::int64_t axis, double eps);

Tensor concat(const std::vector<Tensor>& xs, std::int64_t axis);
Tensor stack(const std::vector<Tensor>& xs);  // a new leading axis
Tensor pad(const Tensor& x, std::int64_t axis, std::int64_t before, std::int64_t after,
           double value);
// x[axis=start:end], bounds already within the axis.
Tensor slice(const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t end);

// The reverses differentiation uses. scatter_add: a zero table of
// `table_shape` with values' rows added at ids (gather's reverse). place: a
// zero tensor of `shape` with values put at [start, end) along the axis.
// take_along: out[.., j, ..] = x[.., ids[.., j, ..], ..] along the axis.
Tensor scatter_add(const Tensor& values, const Tensor& ids, const Shape& table_shape);
Tensor place(const Tensor& values, const Shape& shape, std::int64_t axis, std::int64_t start,
             std::int64_t end);
Tensor take_along(const Tensor& x, const Tensor& ids, std::int64_t axis);

// The windows of x (ir::Window: each windowed axis its count of windows,
// each window's axis appended; the padding `w.value`), and the reverse: a
// zero tensor of `like` with each of values' elements added back at its
// place (the padding's dropped), window's gradient.
Tensor window(const Tensor& x, const ir::Window& w);
Tensor window_fold(const Tensor& values, const Shape& like, const ir::Window& w);

}  // namespace ss::runtime::reference
