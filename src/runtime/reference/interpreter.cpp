#include "runtime/reference/interpreter.hpp"

#include <chrono>
#include <functional>
#include <set>

#include "ir/attributes.hpp"
#include "runtime/core/collectives.hpp"
#include "runtime/core/float_state.hpp"
#include "runtime/core/node_trace.hpp"
#include "runtime/core/plan_store.hpp"
#include "runtime/core/random.hpp"
#include "runtime/reference/ops.hpp"
#include "types/size_arith.hpp"

namespace ss::runtime {
namespace {

using types::Factor;
namespace ref = reference;

Tensor run_einops(const ir::Node& n, const Tensor& x,
                  const std::map<std::string, std::int64_t>& bound, const Dims& dims) {
  const auto [names, sizes] = einops_names(n, x, bound, dims);
  std::optional<ref::Reduce> op;
  if (n.name == "sum") op = ref::Reduce::sum;
  if (n.name == "mean") op = ref::Reduce::mean;
  if (n.name == "max") op = ref::Reduce::max;
  if (n.name == "min") op = ref::Reduce::min;
  return ref::einops(x, names, n.groups_out, sizes, op);
}

}  // namespace

// The pattern's names' sizes: from the plan where they are known, else
// (one per input axis at most) what the input's size leaves.
EinopsNames einops_names(const ir::Node& n, const Tensor& x,
                         const std::map<std::string, std::int64_t>& bound, const Dims& dims) {
  std::map<std::string, std::int64_t> sizes;
  for (const auto& [name, axis] : n.sizes)
    if (const auto s = size_of(axis, bound, dims)) sizes[name] = *s;
  std::vector<std::string> names;
  const auto& atoms = n.groups_in.at(0);
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    std::optional<std::int64_t> known = 1;  // nullopt: past 2^63 - 1, so past any axis
    std::string unknown;
    for (const auto& name : atoms[a]) {
      if (const auto it = sizes.find(name); it != sizes.end())
        known = known ? types::mul_sizes(*known, it->second) : known;
      else
        unknown = name;
    }
    const std::int64_t total = x.dim(static_cast<std::int64_t>(a));
    const std::string parts = known ? std::to_string(*known) : "more than 2^63 - 1";
    if (!unknown.empty()) {
      if (!known || *known == 0 || total % *known != 0)
        throw SplitMismatch(n.span, "an axis of size " + std::to_string(total) +
                                        " doesn't split into parts of " + parts);
      sizes[unknown] = total / *known;
    } else if (!atoms[a].empty() && known != total) {
      // Every part sized (by keywords or the plan): they must make the axis.
      throw SplitMismatch(n.span, "the sizes given for an axis of size " + std::to_string(total) +
                                      " make " + parts);
    }
    if (atoms[a].empty()) names.emplace_back();
    names.insert(names.end(), atoms[a].begin(), atoms[a].end());
  }
  return {names, sizes};
}

RearrangePlan rearrange_plan(const ir::Node& n, const Tensor& x,
                             const std::map<std::string, std::int64_t>& bound, const Dims& dims) {
  RearrangePlan r;
  const auto plan = einops_names(n, x, bound, dims);
  std::vector<std::string> in;  // the named axes, size-1 ones dropped
  for (const auto& name : plan.names)
    if (!name.empty()) {
      in.push_back(name);
      r.atoms.push_back(plan.sizes.at(name));
    }
  for (const auto& group : n.groups_out) {
    std::int64_t size = 1;
    for (const auto& name : group) {
      const std::int64_t s = plan.sizes.at(name);
      const auto it = std::find(in.begin(), in.end(), name);
      size *= s;
      r.expanded.push_back(s);
      if (it == in.end()) {
        r.repeats = true;
        r.kept.push_back(1);
        continue;
      }
      r.order.push_back(it - in.begin());
      r.kept.push_back(s);
    }
    r.shape.push_back(size);
  }
  for (std::size_t a = 0; a < in.size(); ++a)
    if (std::find(r.order.begin(), r.order.end(), static_cast<std::int64_t>(a)) == r.order.end()) {
      r.order.push_back(static_cast<std::int64_t>(a));
      r.reduced *= r.atoms[a];
    }
  return r;
}

namespace {

// Sums a worker's part with every other worker's, in place: f32 and i32
// directly, the other element types through f32.
void all_reduce(WorkerContext& worker, Tensor& t) {
  ++worker.all_reduces;
  worker.reduced_values += t.size();
  const auto start = std::chrono::steady_clock::now();
  const bool direct = t.dtype() == DType::f32 || t.dtype() == DType::i32;
  Tensor wide = direct ? t : ref::cast(t, DType::f32);
  worker.collectives->all_reduce(worker.local, wide.raw(), static_cast<std::size_t>(wide.size()),
                                 wide.dtype());
  if (!direct) t = ref::cast(wide, t.dtype());
  worker.collective_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The index of each element of a value of `type` in the whole batch: on a
// worker, its batch axis starts at the worker's offset and runs over the
// whole size. Elsewhere the index is the element's own.
std::function<std::int64_t(std::int64_t)> global_index(const types::Type& type, const Shape& shape,
                                                       const std::set<std::string>& batch,
                                                       const WorkerContext* worker) {
  const auto found = batch_axis(type, batch);  // not a structured binding: clang 14's lambdas
  const std::string& name = found.second;
  if (!worker || found.first < 0 || !worker->whole.count(name))
    return [](std::int64_t k) { return k; };
  const auto axis = static_cast<std::size_t>(found.first);
  std::int64_t inner = 1;
  for (std::size_t k = axis + 1; k < shape.size(); ++k) inner *= shape[k];
  const std::int64_t local = shape[axis], whole = worker->whole.at(name);
  const std::int64_t offset = worker->offset.at(name);
  return [=](std::int64_t k) {
    const std::int64_t outer = k / (inner * local), row = (k / inner) % local, rest = k % inner;
    return (outer * whole + offset + row) * inner + rest;
  };
}

}  // namespace

void run_reference_node(const ir::Graph& graph, std::size_t i, std::vector<Tensor>& values,
                        const std::map<std::string, Tensor>& inputs,
                        const std::map<std::string, std::int64_t>& sizes, const Dims& dims,
                        WorkerContext* worker) {
  const ir::Node& n = graph.nodes[i];
  const DType dtype = dtype_of(n.type.elem);
  Tensor& out = values[i];
  const auto in = [&](const ir::Node& node, std::size_t k) -> const Tensor& {
    return values[static_cast<std::size_t>(node.in[k])];
  };
  switch (n.op) {
    case ir::Op::input:
      out = inputs.at(n.name);
      break;
    case ir::Op::constant:
      out = Tensor::scalar(dtype, n.number);
      break;
    case ir::Op::size: {
      std::optional<std::int64_t> size;
      if (worker && worker->whole.count(n.name)) size = worker->whole.at(n.name);
      if (const auto it = sizes.find(n.name); !size && it != sizes.end()) size = it->second;
      if (const auto it = dims.find(n.name); !size && it != dims.end()) size = it->second;
      if (!size) throw InternalError("size of an unbound axis " + n.name);
      out = Tensor::scalar(DType::i32, static_cast<double>(*size));
      break;
    }
    case ir::Op::all_reduce:
      out = in(n, 0);
      if (worker) {
        out = out.clone();  // a copy of its own: reduced in place
        all_reduce(*worker, out);
      }
      break;
    case ir::Op::fill: {
      out = Tensor::zeros(dtype, shape_of(n.type, sizes, dims));
      if (n.number != 0)
        for (std::int64_t k = 0, count = out.size(); k < count; ++k) out.set(k, n.number);
      break;
    }
    case ir::Op::unary:
      out = ref::unary(static_cast<ref::Unary>(n.sub), in(n, 0));
      break;
    case ir::Op::binary:
      out = ref::binary(static_cast<ref::Binary>(n.sub), in(n, 0), in(n, 1));
      break;
    case ir::Op::where:
      out = ref::where(in(n, 0), in(n, 1), in(n, 2));
      break;
    case ir::Op::cast: {
      out = ref::cast(in(n, 0), dtype);
      if (n.type.elem.kind == types::ElemKind::index) {  // Index[C](x) is range-checked
        const auto bound = size_of(*n.type.elem.index_of, sizes, dims);
        for (std::int64_t k = 0; bound && k < out.size(); ++k)
          if (out.get(k) < 0 || out.get(k) >= static_cast<double>(*bound))
            throw ref::RangeError(static_cast<std::int64_t>(out.get(k)), *bound, k);
      }
      break;
    }
    case ir::Op::matmul:
      out = ref::matmul(in(n, 0), in(n, 1));
      break;
    case ir::Op::reduce:
      out = ref::reduce(static_cast<ref::Reduce>(n.sub), in(n, 0), n.axes, n.keep);
      break;
    case ir::Op::argmax:
      out = ref::argmax(in(n, 0), n.axes[0], n.keep);
      break;
    case ir::Op::softmax:
      out = ref::softmax(in(n, 0), n.axes[0]);
      break;
    case ir::Op::log_softmax:
      out = ref::log_softmax(in(n, 0), n.axes[0]);
      break;
    case ir::Op::cross_entropy:
      out = ref::cross_entropy(in(n, 0), in(n, 1), n.axes[0], n.sub == 1);
      break;
    case ir::Op::causal:
      out = ref::causal(in(n, 0));
      break;
    case ir::Op::gather:
      out = ref::gather(in(n, 0), in(n, 1));
      break;
    case ir::Op::index:
      out = ref::take(in(n, 0), n.axes[0], ir::axis_part(n).start);
      break;
    case ir::Op::slice: {
      const auto part = ir::axis_part(n);
      const std::int64_t size = in(n, 0).dim(part.axis);
      out = ref::slice(in(n, 0), part.axis, part.first(size), part.last(size));
      break;
    }
    case ir::Op::scatter_add:
      out = ref::scatter_add(in(n, 0), in(n, 1), shape_of(n.type, sizes, dims));
      break;
    case ir::Op::place: {  // an index's values gain the axis back, size 1
      const Shape& shape = in(n, 1).shape();
      const auto part = ir::axis_part(n);
      const std::int64_t size = shape.at(static_cast<std::size_t>(part.axis));
      out = ref::place(in(n, 0), shape, part.axis, part.first(size), part.last(size));
      break;
    }
    case ir::Op::take_along:
      out = ref::take_along(in(n, 0), in(n, 1), n.axes[0]);
      break;
    case ir::Op::window:
      out = ref::window(in(n, 0), ir::window_of(n));
      break;
    case ir::Op::window_fold:
      out = ref::window_fold(in(n, 0), in(n, 1).shape(), ir::window_of(n));
      break;
    case ir::Op::sort:
      out = ref::sort(in(n, 0), n.axes[0]);
      break;
    case ir::Op::argsort:
      out = ref::argsort(in(n, 0), n.axes[0]);
      break;
    case ir::Op::layer_norm:
      out = ref::layer_norm(in(n, 0), n.axes[0], n.number);
      break;
    case ir::Op::rms_norm:
      out = ref::rms_norm(in(n, 0), n.axes[0], n.number);
      break;
    case ir::Op::pad: {
      const auto pad = ir::pad_of(n);
      out = ref::pad(in(n, 0), pad.axis, pad.before, pad.after, pad.value);
    } break;
    case ir::Op::concat:
    case ir::Op::stack:
    case ir::Op::einsum: {
      std::vector<Tensor> xs;
      for (std::size_t k = 0; k < n.in.size(); ++k) xs.push_back(in(n, k));
      if (n.op == ir::Op::concat) {
        out = ref::concat(xs, n.axes[0]);
      } else if (n.op == ir::Op::stack) {
        out = ref::stack(xs);
      } else {
        std::vector<std::vector<std::string>> names;
        for (const auto& atoms : n.groups_in) {
          auto& flat = names.emplace_back();
          for (const auto& group : atoms) flat.insert(flat.end(), group.begin(), group.end());
        }
        std::vector<std::string> out_names;
        for (const auto& group : n.groups_out)
          out_names.insert(out_names.end(), group.begin(), group.end());
        out = ref::einsum(xs, names, out_names);
      }
      break;
    }
    case ir::Op::einops:
      out = run_einops(n, in(n, 0), sizes, dims);
      break;
    case ir::Op::literal: {
      out = Tensor::from_values(dtype, shape_of(n.type, sizes, dims), n.values);
      break;
    }
    case ir::Op::random: {
      out = Tensor::zeros(dtype, shape_of(n.type, sizes, dims));
      // The seed: the node's, plus its input's when it has one (dropout's
      // `$seed`); the stream: the node's second int, if any.
      const auto draw = ir::random_of(n);
      auto seed = static_cast<std::uint64_t>(draw.seed);
      if (!n.in.empty()) seed += static_cast<std::uint64_t>(in(n, 0).get(0));
      const auto stream = static_cast<std::uint32_t>(draw.stream);
      const auto global = global_index(n.type, out.shape(), graph.batch, worker);
      for (std::int64_t k = 0; k < out.size(); ++k) {
        const auto at = static_cast<std::uint64_t>(global(k));
        out.set(k, draw.kind == "normal"
                       ? draw.a + draw.b * random_normal(seed, stream, at)
                       : draw.a + (draw.b - draw.a) * random_uniform(seed, stream, at));
      }
      break;
    }
    case ir::Op::loop:
    case ir::Op::loop_part:
      throw InternalError("a loop runs in run_graph, not node by node");
    case ir::Op::attention:
    case ir::Op::attention_grad:
    case ir::Op::max_pool:
    case ir::Op::max_pool_grad: {  // the composition the program wrote
      std::vector<Tensor> given;
      for (std::size_t k = 0; k < n.in.size(); ++k) given.push_back(in(n, k));
      out = run_body(n, given, dims, worker, nullptr);
      break;
    }
    case ir::Op::arange: {
      const auto s = size_of(n.type.axes.at(0), sizes, dims);
      if (!s) throw InternalError("arange of an unknown size");
      out = Tensor::zeros(DType::i32, {*s});
      for (std::int64_t k = 0; k < *s; ++k) out.set(k, static_cast<double>(k));
      break;
    }
  }
}

namespace {

// The walk: every node in order, each offered to the executor first, its
// value dropped after its last reader; the inputs already in place.
void walk(const ir::Graph& graph, GraphFrame& frame, const Dims& dims, WorkerContext* worker,
          const GraphExecutor* executor) {
  // Numerics::portable: the host's floating-point state (flush-to-zero,
  // say) kept out of the walk, and put back after; the loops' parts take
  // it from here (helper_threads.hpp).
  const FloatStateScope fp_state(
      executor && executor->portable_numerics() ? kPortableFloatState : runtime::float_state());
  const auto& sizes = frame.sizes;
  std::vector<Tensor>& values = frame.values;
  std::shared_ptr<const ir::ReleasePlan> releases;
  if (executor) releases = executor->releases(graph);
  if (!releases)  // no executor, or one whose nodes read their inputs where they run
    releases = std::make_shared<const ir::ReleasePlan>(ir::plan_releases(graph));
  // Each value is dropped after its last reader, so its buffer returns to
  // the pool (or its frame) while the graph still runs; a loop's outputs
  // with it.
  const auto release_after = [&](std::size_t i) {
    for (const int v : (*releases)[i]) {
      const auto k = static_cast<std::size_t>(v);
      values[k].reset();
      if (k < frame.loops.size() && frame.loops[k])
        for (Tensor& t : frame.loops[k]->outputs) t.reset();
    }
  };
  static const std::map<std::string, Tensor> placed;  // (no input reaches the reference's)
  // A trace times this graph's nodes; a loop's body, walked inside one,
  // is that node's time.
  NodeTrace* const trace = node_trace();
  const TraceNodes untraced(nullptr);
  NodeTrace::Clock::time_point start, began;
  if (trace) {
    trace->graph_begins(graph);
    began = NodeTrace::Clock::now();
  }
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const ir::Node& n = graph.nodes[i];
    const DType dtype = dtype_of(n.type.elem);
    Tensor& out = values[i];
    bool reference = false;
    if (trace) start = NodeTrace::Clock::now();
    if (n.op == ir::Op::loop) {
      if (frame.loops.size() != graph.nodes.size()) frame.loops.resize(graph.nodes.size());
      auto& loop = frame.loops[i];
      if (!loop) loop = std::make_unique<LoopFrame>();
      loop->given.clear();
      for (const int x : n.in) loop->given.push_back(values[static_cast<std::size_t>(x)]);
      out = run_loop_in(n, *loop, dims, worker, executor).at(0);
    } else if (n.op == ir::Op::loop_part) {
      out = frame.loops.at(static_cast<std::size_t>(n.in[0]))
                ->outputs.at(static_cast<std::size_t>(n.number));
    } else if (executor && executor->run(graph, i, values, sizes, dims)) {
    } else if (n.op == ir::Op::input) {  // placed before the walk
    } else if (n.body) {  // a fused node the executor has no kernel for: its body there
      std::vector<Tensor> given;
      for (const int x : n.in) given.push_back(values[static_cast<std::size_t>(x)]);
      out = run_body(n, given, dims, worker, executor);
    } else {
      run_reference_node(graph, i, values, placed, sizes, dims, worker);
      reference = true;
    }
    // The graph's element type is the contract: results are stored in it.
    if (out.dtype() != dtype) out = ref::cast(out, dtype);
    if (trace) trace->node(graph, i, out, reference, start, NodeTrace::Clock::now());
    release_after(i);
  }
  frame.outputs.clear();
  for (const int o : graph.outputs) frame.outputs.push_back(values[static_cast<std::size_t>(o)]);
  if (trace) {
    std::int64_t bytes = 0;
    for (const Tensor& t : frame.outputs)
      if (t.buffer()) bytes += t.size() * static_cast<std::int64_t>(dtype_size(t.dtype()));
    trace->graph_ends(graph, began, bytes);
  }
}

}  // namespace

std::vector<Tensor> run_graph(const ir::Graph& graph, const std::map<std::string, Tensor>& inputs,
                              const Dims& dims, WorkerContext* worker,
                              const GraphExecutor* executor) {
  if (std::vector<Tensor> outputs;
      executor && executor->run_whole(graph, inputs, dims, worker, outputs))
    return outputs;
  GraphFrame frame;
  frame.sizes = bind_sizes(graph, inputs, dims);
  frame.values.resize(graph.nodes.size());
  for (const int id : graph.inputs) {
    const auto k = static_cast<std::size_t>(id);
    frame.values[k] = inputs.at(graph.nodes[k].name);
  }
  walk(graph, frame, dims, worker, executor);
  return std::move(frame.outputs);
}

void run_graph_in(const ir::Graph& graph, GraphFrame& frame, const Dims& dims,
                  const GraphExecutor* executor, WorkerContext* worker) {
  frame.values.resize(graph.nodes.size());
  walk(graph, frame, dims, worker, executor);
}

GraphFrame::GraphFrame() = default;
GraphFrame::~GraphFrame() = default;
GraphFrame::GraphFrame(GraphFrame&&) noexcept = default;
GraphFrame& GraphFrame::operator=(GraphFrame&&) noexcept = default;

void GraphFrame::clear() {
  for (Tensor& t : values)
    if (t.buffer()) t.reset();  // (most were dropped by the walk already)
  for (Tensor& t : outputs) t.reset();
  for (auto& loop : loops)
    if (loop) loop->clear();
}

void LoopFrame::clear() {
  body.clear();
  for (Tensor& t : given) t.reset();
  for (Tensor& t : carried) t.reset();
  for (auto& step : steps)
    for (Tensor& t : step) t.reset();
  for (Tensor& t : outputs) t.reset();
}

namespace {

// The reference interpreter as an executor: it takes no node, so the walk
// runs each on the reference's operations; its plan is the release plan.
class ReferenceExecutor final : public GraphExecutor {
 public:
  std::string name() const override { return "the reference runtime"; }
  void plan(const ir::Graph& g) const override { plans_.plan_at_load(g, plain); }
  PlanCounts plan_counts() const override { return plans_.counts(); }
  std::shared_ptr<const ir::ReleasePlan> releases(const ir::Graph& g) const override {
    return plans_.get(g, plain, false);
  }

 private:
  static std::shared_ptr<const ir::ReleasePlan> plain(const ir::Graph& g) {
    return std::make_shared<const ir::ReleasePlan>(ir::plan_releases(g));
  }
  PlanStore<ir::ReleasePlan> plans_;
};

}  // namespace

std::unique_ptr<GraphExecutor> make_reference_executor() {
  return std::make_unique<ReferenceExecutor>();
}

}  // namespace ss::runtime
