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

std::vector<Tensor>& run_loop_in(const ir::Node& n, LoopFrame& f, const Dims& dims,
                                 WorkerContext* worker, const GraphExecutor* executor) {
  if (!f.shape) f.shape = ir::loop_of(n);
  if (executor && executor->run_loop({n, *f.shape, f.given, f.state, f.outputs}, dims, worker))
    return f.outputs;
  const ir::LoopShape& shape = *f.shape;
  const ir::Graph& body = *n.body;
  const std::vector<Tensor>& given = f.given;
  const std::size_t carries = shape.carries, stacked = shape.stacked;
  const std::int64_t length = given.at(carries).dim(shape.axes[0]);
  for (std::size_t j = 1; j < stacked; ++j)
    if (given.at(carries + j).dim(shape.axes[j]) != length)
      throw runtime::InternalError("a loop's stacked inputs differ in length");
  GraphFrame& b = f.body;
  b.values.resize(body.nodes.size());
  const auto input = [&](std::size_t k) -> Tensor& {
    return b.values[static_cast<std::size_t>(body.inputs[k])];
  };
  f.carried.resize(carries);
  for (std::size_t k = 0; k < carries; ++k) f.carried[k] = given[k];
  const std::size_t results = body.outputs.size() - carries;
  f.steps.resize(results);
  for (auto& step : f.steps) step.resize(static_cast<std::size_t>(length));
  for (std::int64_t t = 0; t < length; ++t) {
    const std::int64_t at = shape.reverse ? length - 1 - t : t;
    // Every input again each step: the body's walk drops each after its
    // last reader.
    for (std::size_t k = 0; k < given.size(); ++k) {
      if (k < carries)
        input(k) = f.carried[k];
      else if (k >= carries + stacked)
        input(k) = given[k];
      else  // a view where it is contiguous
        input(k) = shape.axes[k - carries] == 0
                       ? given[k].select(0, at)
                       : reference::take(given[k], shape.axes[k - carries], at);
    }
    // The body's sizes, bound at the first step (and again should the
    // inputs' shapes change).
    bool same = f.bound_at.size() == given.size();
    for (std::size_t k = 0; k < given.size() && same; ++k) same = input(k).shape() == f.bound_at[k];
    if (!same) {
      std::map<std::string, Tensor> named;
      f.bound_at.clear();
      for (std::size_t k = 0; k < given.size(); ++k) {
        named[body.nodes[static_cast<std::size_t>(body.inputs[k])].name] = input(k);
        f.bound_at.push_back(input(k).shape());
      }
      b.sizes = bind_sizes(body, named, dims);
    }
    run_graph_in(body, b, dims, executor, worker);
    for (std::size_t k = 0; k < carries; ++k) f.carried[k] = std::move(b.outputs[k]);
    for (std::size_t r = 0; r < results; ++r)
      f.steps[r][static_cast<std::size_t>(at)] = std::move(b.outputs[carries + r]);
  }
  f.outputs.clear();
  for (std::size_t k = 0; k < carries; ++k) f.outputs.push_back(std::move(f.carried[k]));
  for (std::size_t r = 0; r < results; ++r) {
    if (f.steps[r].empty()) throw runtime::InternalError("a loop of no steps has no results");
    f.outputs.push_back(stack_along(f.steps[r], shape.result_axes.at(r)));
    for (Tensor& step : f.steps[r]) step.reset();
  }
  return f.outputs;
}

std::vector<Tensor> run_loop(const ir::Node& n, const std::vector<Tensor>& given, const Dims& dims,
                             WorkerContext* worker, const GraphExecutor* executor) {
  LoopFrame f;
  f.given = given;
  return std::move(run_loop_in(n, f, dims, worker, executor));
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
