// The reference runtime: the oracle every faster executor is tested
// against, and the graph walk every executor but one that runs whole graphs
// goes through (each node offered to the executor first, the reference
// operation where it declines). The generic axes' sizes are read off the
// inputs at each call, so one graph runs at every batch size.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.hpp"
#include "runtime/core/executor.hpp"
#include "runtime/core/tensor.hpp"
#include "runtime/reference/nodes.hpp"

namespace ss::runtime {

// A loop node's outputs (ir::loop_of) from its inputs' values, each step a
// run_graph of its body on the same executor.
std::vector<Tensor> run_loop(const ir::Node& loop, const std::vector<Tensor>& inputs,
                             const Dims& dims, WorkerContext* worker,
                             const GraphExecutor* executor);

// A fused node's value (attention, attention_grad) as its body computes
// it: the composition the program wrote, on `executor` (if any) node by
// node.
Tensor run_body(const ir::Node& fused, const std::vector<Tensor>& inputs, const Dims& dims,
                WorkerContext* worker, const GraphExecutor* executor);

// Without a worker context, an all_reduce node passes its value on (one
// device holds every part).
std::vector<Tensor> run_graph(const ir::Graph& graph, const std::map<std::string, Tensor>& inputs,
                              const Dims& dims, WorkerContext* worker = nullptr,
                              const GraphExecutor* executor = nullptr);

// The reference interpreter as an executor: every node the reference's, its
// release plan made at load.
std::unique_ptr<GraphExecutor> make_reference_executor();

}  // namespace ss::runtime
