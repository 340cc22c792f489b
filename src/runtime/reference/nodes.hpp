// The reference runtime's node operations, as the graph walk
// (runtime/reference/interpreter.hpp) runs them: what every executor falls
// back to for a node it doesn't take, and the einops naming executors that
// move elements share.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.hpp"
#include "runtime/core/executor.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime {

// The reference operation of node `i` into values[i], from the values
// before it (in the node's result type or another: run_graph casts): what
// run_graph does with a node no executor takes, and what an executor
// that runs elsewhere falls back to for an operation it lacks.
void run_reference_node(const ir::Graph& graph, std::size_t i, std::vector<Tensor>& values,
                        const std::map<std::string, Tensor>& inputs,
                        const std::map<std::string, std::int64_t>& sizes, const Dims& dims,
                        WorkerContext* worker);

// An einops node's input names, one per axis of its input once its groups
// are split (an empty name for a size-1 axis), and every name's size.
struct EinopsNames {
  std::vector<std::string> names;
  std::map<std::string, std::int64_t> sizes;
};
EinopsNames einops_names(const ir::Node& n, const Tensor& x,
                         const std::map<std::string, std::int64_t>& bound, const Dims& dims);

// An einops node as one rearrangement of its input, for an executor that
// moves elements rather than naming them: the input's named axes (size-1
// ones dropped) as `atoms`, permuted by `order` (the output's names in its
// order, then the ones it reduces, in the input's order, `reduced`
// elements in all). A name only the output has repeats the input: `kept`
// has 1 there and `expanded` its size. `shape` is the output's.
struct RearrangePlan {
  Shape atoms, shape, kept, expanded;
  std::vector<std::int64_t> order;
  bool repeats = false;
  std::int64_t reduced = 1;
};
RearrangePlan rearrange_plan(const ir::Node& n, const Tensor& x,
                             const std::map<std::string, std::int64_t>& bound, const Dims& dims);

}  // namespace ss::runtime
