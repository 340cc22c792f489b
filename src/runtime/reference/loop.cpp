// A loop node (ir/ops.def's `loop`): its body graph run once per step, on
// the same executor as the graph around it, so the body's plan (its fused
// kernels, its release plan) is made once and serves every step. A fused
// node's body (attention's) runs the same way, once.
#include <cstring>

#include "ir/attributes.hpp"
#include "runtime/reference/interpreter.hpp"
#include "runtime/reference/ops.hpp"

namespace ss::runtime {
namespace {

// The steps' values stacked along a new axis at `axis`.
Tensor stack_along(const std::vector<Tensor>& steps, std::int64_t axis) {
  const Tensor& first = steps.at(0);
  Shape shape = first.shape();
  const auto length = static_cast<std::int64_t>(steps.size());
  shape.insert(shape.begin() + axis, length);
  Tensor out = Tensor::uninitialized(first.dtype(), shape);
  std::int64_t outer = 1;
  for (std::int64_t k = 0; k < axis; ++k) outer *= first.dim(k);
  const std::size_t inner =
      static_cast<std::size_t>(first.size() / std::max<std::int64_t>(outer, 1)) *
      dtype_size(first.dtype());
  auto* to = static_cast<char*>(out.raw());
  for (std::int64_t t = 0; t < length; ++t) {
    const Tensor step = steps[static_cast<std::size_t>(t)].compact();
    if (step.shape() != first.shape() || step.dtype() != first.dtype())
      throw runtime::InternalError("a loop's steps made results of different shapes");
    const auto* from = static_cast<const char*>(step.raw());
    for (std::int64_t o = 0; o < outer; ++o)
      std::memcpy(to + (o * length + t) * inner, from + o * inner, inner);
  }
  return out;
}

}  // namespace

std::vector<Tensor> run_loop(const ir::Node& n, const std::vector<Tensor>& given, const Dims& dims,
                             WorkerContext* worker, const GraphExecutor* executor) {
  const ir::LoopShape shape = ir::loop_of(n);
  const ir::Graph& body = *n.body;
  const std::size_t carries = shape.carries, stacked = shape.stacked;
  std::vector<const std::string*> names;
  for (const int id : body.inputs) names.push_back(&body.nodes[static_cast<std::size_t>(id)].name);
  const std::int64_t length = given.at(carries).dim(shape.axes[0]);
  for (std::size_t j = 1; j < stacked; ++j)
    if (given.at(carries + j).dim(shape.axes[j]) != length)
      throw runtime::InternalError("a loop's stacked inputs differ in length");
  std::map<std::string, Tensor> inputs;
  for (std::size_t k = 0; k < given.size(); ++k)
    if (k < carries || k >= carries + stacked) inputs[*names[k]] = given[k];
  const std::size_t results = body.outputs.size() - carries;
  std::vector<std::vector<Tensor>> steps(results, std::vector<Tensor>(length));
  for (std::int64_t t = 0; t < length; ++t) {
    const std::int64_t at = shape.reverse ? length - 1 - t : t;
    for (std::size_t j = 0; j < stacked; ++j)
      inputs[*names[carries + j]] = shape.axes[j] == 0  // a view where it is contiguous
                                        ? given[carries + j].select(0, at)
                                        : reference::take(given[carries + j], shape.axes[j], at);
    std::vector<Tensor> out = run_graph(body, inputs, dims, worker, executor);
    for (std::size_t k = 0; k < carries; ++k) inputs[*names[k]] = std::move(out[k]);
    for (std::size_t r = 0; r < results; ++r) steps[r][at] = std::move(out[carries + r]);
  }
  std::vector<Tensor> outputs;
  for (std::size_t k = 0; k < carries; ++k) outputs.push_back(inputs[*names[k]]);
  for (std::size_t r = 0; r < results; ++r) {
    if (steps[r].empty()) throw runtime::InternalError("a loop of no steps has no results");
    outputs.push_back(stack_along(steps[r], shape.result_axes.at(r)));
  }
  return outputs;
}

Tensor run_body(const ir::Node& fused, const std::vector<Tensor>& given, const Dims& dims,
                WorkerContext* worker, const GraphExecutor* executor) {
  const ir::Graph& body = *fused.body;
  std::map<std::string, Tensor> inputs;
  for (std::size_t k = 0; k < given.size(); ++k)
    inputs[body.nodes[static_cast<std::size_t>(body.inputs.at(k))].name] = given[k];
  return run_graph(body, inputs, dims, worker, executor).at(0);
}

}  // namespace ss::runtime
