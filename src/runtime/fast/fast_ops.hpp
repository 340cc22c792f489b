// The fast executor's loops for the rest of what programs use: values made
// from nothing (fills, ranges, constants, literals), comparisons and logic
// to bool, argmax, cross-entropy, gathers and their gradient's scatter,
// layer and RMS norms, wheres, pads, joins and sorts. Each gives the reference operation's bits
// (the same arithmetic in the same order) and throws its RangeError for an id out of range; each
// returns false for a dtype or axis it doesn't take, leaving the node to the reference.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/attributes.hpp"
#include "ir/ops.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime::fast {

// Every element `value`, in dtype.
bool fill(DType dtype, const Shape& shape, double value, Tensor& out);
// 0, 1, ..., n - 1 as i32.
bool arange(std::int64_t n, Tensor& out);
// Any binary operation on any of f32, i32 and bool (read as doubles, exact
// for each), broadcast: comparisons and logic to bool, integer arithmetic
// (Python's floor division and modulo) to i32, as the reference computes it.
bool binary_any(ir::Binary op, const Tensor& a, const Tensor& b, Tensor& out);
// The first largest element's index along `axis`, the last axis of a float
// tensor; i32.
bool argmax(const Tensor& x, std::int64_t axis, bool keep, Tensor& out);
// Mean (or sum) over examples of -log_softmax(logits)[label], classes on
// the last axis; labels i32, one per row.
bool cross_entropy(const Tensor& logits, const Tensor& labels, std::int64_t axis, bool sum,
                   Tensor& out, bool portable = false);
// Rows of a table by id: ids' shape, then the table's row shape.
bool gather(const Tensor& table, const Tensor& ids, Tensor& out);
// The gather's gradient: each value row added into its id's row of a zero
// table, in order.
bool scatter_add(const Tensor& values, const Tensor& ids, const Shape& table_shape, Tensor& out);
// (x - mean) / sqrt(var + eps) along the last axis of a float tensor,
// or without the mean (rms_norm) when `centre` is false.
bool normalise(const Tensor& x, std::int64_t axis, bool centre, double eps, Tensor& out);
// `x` broadcast into `shape`, every element its own (any element type).
Tensor expand(const Tensor& x, const Shape& shape);
// cond ? a : b, broadcast, in the operands' common type.
bool where(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out);
// `value` around x along `axis`: `before` elements ahead, `after` behind.
bool pad(const Tensor& x, std::int64_t axis, std::int64_t before, std::int64_t after, double value,
         Tensor& out);
// Tensors of one element type joined along an existing axis, or stacked
// along a new first one.
bool concat(std::span<const Tensor> xs, std::int64_t axis, Tensor& out);
// The windows of x (ir::Window), and their fold back into `like`'s shape
// (f32): what the reference's window and window_fold give, bit for bit
// (fast_window.cpp).
bool window(const Tensor& x, const ir::Window& w, Tensor& out);
bool window_fold(const Tensor& values, const Shape& like, const ir::Window& w, Tensor& out);
// The same elements as window's, but each position's window element j
// before its channels, [..., window..., C] in memory under window's shape
// (x channels last, its last axis not windowed: a contiguous run of C per
// element); false where that doesn't hold. For contractions only: the
// einsum reading it reorders its contracted axis to match.
bool window_channels_inner(const Tensor& x, const ir::Window& w, Tensor& out);
// max_pool (ir/ops.def): each window's first maximum (padding is the
// window's value, -inf), and its gradient: each window's gradient added at
// that maximum's place in a zero tensor of x's shape (fast_pool.cpp). The
// values are the reference's; the gradient's sums where windows overlap in
// window order, split over threads only along a first axis no window
// crosses, so the same bits for any thread count.
bool max_pool(const Tensor& x, const ir::Window& w, Tensor& out, int threads);
bool max_pool_grad(const Tensor& x, const Tensor& dy, const ir::Window& w, Tensor& dx, int threads);
bool stack(std::span<const Tensor> xs, Tensor& out);
// Each run along `axis` sorted (stably, as doubles compare), or the order
// that sorts it (i32).
bool sort(const Tensor& x, std::int64_t axis, bool indices, Tensor& out);

}  // namespace ss::runtime::fast
