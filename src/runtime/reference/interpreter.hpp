// The reference runtime: the oracle every faster executor is tested
// against, and the graph walk every executor but one that runs whole graphs
// goes through (each node offered to the executor first, the reference
// operation where it declines). The generic axes' sizes are read off the
// inputs at each call, so one graph runs at every batch size.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/attributes.hpp"
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

struct LoopFrame;

// What one run of a graph holds, kept between runs at the same sizes by a
// frame (api/frames.hpp) so a steady run allocates nothing: every node's
// value (the inputs placed by the caller), the generic axes' sizes bound
// from them, the outputs, and each loop node's own frame. run_graph_in
// leaves the outputs there; the caller clears the values after reading
// them.
struct GraphFrame {
  GraphFrame();
  ~GraphFrame();
  GraphFrame(GraphFrame&&) noexcept;
  GraphFrame& operator=(GraphFrame&&) noexcept;
  std::vector<Tensor> values;
  std::map<std::string, std::int64_t> sizes;
  std::vector<Tensor> outputs;
  std::vector<std::unique_ptr<LoopFrame>> loops;  // per node; a loop's, made on its first run
  void clear();
};

// A loop node's frame: its body's, the shapes its body's sizes were bound
// at, the steps' results until they are stacked, the loop's outputs, and
// what the executor keeps for it.
struct LoopFrame {
  GraphFrame body;
  std::optional<ir::LoopShape> shape;  // the node's, read once
  std::vector<Shape> bound_at;
  std::vector<Tensor> given, carried;
  std::vector<std::vector<Tensor>> steps;
  std::vector<Tensor> outputs;
  std::unique_ptr<LoopState> state;  // the executor's (GraphExecutor::run_loop)
  void clear();
};

// run_graph's walk over a frame whose inputs (values at graph.inputs) and
// sizes are in place: no executor that runs whole graphs.
void run_graph_in(const ir::Graph& graph, GraphFrame& frame, const Dims& dims,
                  const GraphExecutor* executor, WorkerContext* worker = nullptr);

// run_loop in the loop's frame: its outputs there (its own value first).
std::vector<Tensor>& run_loop_in(const ir::Node& loop, LoopFrame& frame, const Dims& dims,
                                 WorkerContext* worker, const GraphExecutor* executor);

// The reference interpreter as an executor: every node the reference's, its
// release plan made at load.
std::unique_ptr<GraphExecutor> make_reference_executor();

}  // namespace ss::runtime
