// The tensor IR: one graph per device function, the contract between the
// front end and every executor (the reference runtime today; the LLVM JIT
// and CUDA later). Nodes are in topological order; each has a tensor type
// whose axes are named (dims, the function's generic axes, literals), so
// generic sizes stay symbolic: one graph serves every batch size.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "check/types.hpp"
#include "syntax/source_map.hpp"

namespace ss::ir {

enum class Op {
  input,     // name: "x", "m.w1", "batch.pixels"
  constant,  // number, in the node's dtype, shape []
  size,      // name: a generic axis; its size as an i32 scalar
  fill,      // number, in the node's shape (zeros, ones, full)
  unary,     // sub: Unary (ir/ops.hpp)
  binary,    // sub: Binary
  where,
  cast,  // to the node's dtype
  matmul,
  reduce,         // sub: Reduce; axes; keep
  argmax,         // axes[0]; keep
  softmax,        // axes[0]
  log_softmax,    // axes[0]
  cross_entropy,  // axes[0]; sub 1: the sum over the other positions, not the mean
  causal,
  gather,
  index,    // axes[0]: the axis; number: the static index (negative counts from the end)
  slice,    // axes[0]; ints: start, end (within the axis); keep: end counts back from the
            // axis' end (end = size - ints[1])
  einops,   // groups_in[0]: the input's axes as groups of names; groups_out; sizes; name: reduce op
            // or ""
  einsum,   // groups_in: each input's names; groups_out: the output's
  sort,     // axes[0]
  argsort,  // axes[0]
  layer_norm,  // axes[0]
  rms_norm,    // axes[0]
  concat,      // axes[0]; any number of inputs
  stack,       // any number of inputs
  pad,         // axes[0]; ints: before, after; number: the value
  literal,     // values, in the node's shape
  arange,      // 0, 1, ... along the node's one axis
  random,      // name: normal or uniform; values: mean, std or low, high; ints: seed and
               // stream (0 when absent); an input, if any, adds to the seed (dropout)
  // Made by differentiation (ir/autodiff.hpp):
  scatter_add,  // in: values, ids; gather's reverse: rows of a zero table (the node's type)
                // get the values added at the ids
  place,        // in: values, like; a zero tensor of like's shape with the values put
                // at axes[0]: the slice ints[0]:ints[1] or, when ints is empty, the
                // index `number` (values lack that axis)
  take_along,   // in: x, ids; along axes[0], out[.., j, ..] = x[.., ids[.., j, ..], ..]
  // Made by distribution over several devices (ir/distribute.hpp):
  all_reduce,  // in: each worker's part of a sum; out: the sum, the same bits on every worker
};

const char* op_name(Op op);

struct Node {
  Op op = Op::constant;
  std::vector<int> in;
  int sub = 0;
  std::vector<std::int64_t> axes;
  bool keep = false;
  double number = 0;
  std::string name;
  std::vector<std::int64_t> ints;
  std::vector<double> values;
  std::vector<std::vector<std::vector<std::string>>> groups_in;
  std::vector<std::vector<std::string>> groups_out;
  std::map<std::string, check::Axis> sizes;
  check::Type type;  // always a tensor
  syntax::Span span;
};

// What an executor derived from a graph and keeps with it (the fast
// executor's compiled fusion plan), guarded for threads running the graph
// at once. A copied or assigned graph starts without: it may be changed.
struct ExecutorCache {
  ExecutorCache() = default;
  ExecutorCache(const ExecutorCache&) {}
  ExecutorCache& operator=(const ExecutorCache&) {
    std::lock_guard lock(mutex);
    value.reset();
    return *this;
  }
  mutable std::mutex mutex;
  mutable std::shared_ptr<const void> value;
};

struct Graph {
  std::string name;
  std::vector<Node> nodes;
  std::vector<int> inputs;   // in parameter order, a parameter's fields flattened
  std::vector<int> outputs;  // a tuple gives several
  // The last outputs' names, when the function changes `mut` structures:
  // their tensors' new values ("m.w1", "opt.step"), after the results.
  std::vector<std::string> updated;
  std::set<std::string> symbols;  // the generic axes the sizes depend on
  // With several devices: the generic axes that are batch axes. An input
  // with one is split along it; see ir/distribute.hpp.
  std::set<std::string> batch;
  // After distribution: per output, whether it is split (each worker
  // returns its part, joined in rank order) rather than whole.
  std::vector<bool> split_outputs;
  ExecutorCache executor_cache;  // the fast CPU executor's plan
  ExecutorCache device_plan;     // the CUDA executor's (kernels/cuda_executor.cpp)
  ExecutorCache memory_plan;     // the runtime's ir::ReleasePlan for this graph

  int add(Node node);
};

// A readable listing, one node a line:  %3 = matmul %1 %2 : [b H]
std::string print(const Graph& graph);

// Empty when the graph is well formed (inputs before use, arity, types);
// else what is wrong. Run between passes.
std::string verify(const Graph& graph);

}  // namespace ss::ir
