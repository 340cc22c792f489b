// Data parallelism over several devices (chapter 18 of the catalog): the
// graph each worker runs on its part of the batch.
//
// Every value is whole (the same on every worker), split (each worker holds
// its part of the batch axis) or partial (each worker holds a summand; the
// value is their sum). An input with a batch axis (Graph::batch) is split.
// An operation that combines a split value across the batch axis with a
// distributed lowering (sum, mean, cross_entropy, matmul, einsum, einops
// sum/mean, scatter_add, all of them sums) gives a partial value; mean and
// cross_entropy sum locally and divide by the whole batch's size. Sums and
// differences keep values partial (a partial plus a whole value keeps its two
// parts apart: "mixed"), so the gradients of a parameter used on several
// paths, and a penalty's, add up before they meet; any other use, and every
// output, needs the value whole, which one all_reduce node per partial value
// makes, shared by all its uses. (A partial scaled would be a second partial
// of the same sum, reduced a second time, so scaling makes it whole first.)
// Autodiff runs before this pass, on the one-device graph, so gradients
// follow the same rules: a replicated parameter's gradient gets exactly one
// all-reduce, a whole value none.
#pragma once

#include <stdexcept>

#include "ir/graph.hpp"

namespace ss::ir {

// An operation along the batch axis that has no lowering for several
// devices; the checker reports these (E1801), so reaching one is a bug.
struct NoDistributedLowering : std::logic_error {
  using std::logic_error::logic_error;
};

// The graph `g` as each worker runs it: all_reduce nodes added, means and
// cross_entropy made local sums over the whole size, `split_outputs` set.
// Op::size of a batch axis then means the whole batch's size.
Graph distribute(const Graph& g);

}  // namespace ss::ir
