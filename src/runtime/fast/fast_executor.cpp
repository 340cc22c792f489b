#include "runtime/fast/fast_executor.hpp"

#include "runtime/fast/fast_executor_impl.hpp"

namespace ss::runtime::fastexec {
namespace {

// A two-operand einsum as the reference computes it: for one the fast
// executor's GEMMs don't take.
Tensor reference_einsum(const ir::Node& n, const Tensor& a, const Tensor& b) {
  std::vector<std::vector<std::string>> names;
  for (const auto& atoms : n.groups_in) {
    auto& flat = names.emplace_back();
    for (const auto& group : atoms) flat.insert(flat.end(), group.begin(), group.end());
  }
  std::vector<std::string> out;
  for (const auto& group : n.groups_out) out.insert(out.end(), group.begin(), group.end());
  return reference::einsum({a, b}, names, out);
}

}  // namespace

FusionCounts FastExecutor::counts() const {
  FusionCounts c{kernels_.load(),     runs_.load(),       stepped_.load(),
                 from_memory_.load(), from_store_.load(), planned_loops_.load(),
                 jit_failures_.load()};
  std::lock_guard lock(jit_error_mutex_);
  c.jit_error = jit_error_;
  return c;
}

std::map<std::string, std::int64_t> FastExecutor::nodes() const {
  std::map<std::string, std::int64_t> out;
  for (const auto& [name, f] : functions())
    for (const auto& [path, count] : f.nodes) out[path] += count;
  return out;
}

std::map<std::string, GraphStats> FastExecutor::functions() const {
  static const char* const names[kPaths] = {"gemm",  "fused",   "loops",     "reductions",
                                            "moves", "created", "attention", "runtime"};
  std::map<std::string, GraphStats> out;
  std::lock_guard lock(registry_mutex_);
  for (const auto& c : registry_) {
    GraphStats& f = out[c->name];
    f.calls += c->calls;
    f.fused_kernels = std::max(f.fused_kernels, c->kernels);
    for (std::size_t p = 0; p < kPaths; ++p)
      if (c->paths[p]) f.nodes[names[p]] += c->paths[p];
    for (std::size_t op = 0; op < kOps; ++op)
      if (c->by_reference[op])
        f.nodes[std::string("reference ") + ir::op_name(static_cast<ir::Op>(op))] +=
            c->by_reference[op];
  }
  return out;
}

namespace {

// The plan a thread's run of a graph looked up last, by executor and graph
// (ids neither reuses, as addresses may be): the walk asks for the
// releases, then offers node 0, of one graph.
struct LastPlan {
  std::uint64_t executor = 0;
  std::uint64_t graph = 0;
  const FusionPlan* plan = nullptr;
};
thread_local LastPlan t_last;

}  // namespace

const FusionPlan* FastExecutor::last_plan(const ir::Graph& g) const {
  if (t_last.executor != serial_ || t_last.graph != g.id.value)
    t_last = {serial_, g.id.value, plan_for(g)};
  return t_last.plan;
}

// Each matmul whose weight operand is one of the resident inputs: packed
// now, as that product's first run would pack it.
void FastExecutor::prepare(const ir::Graph& g,
                           const std::map<std::string, Tensor>& resident) const {
  const UseWorkers use(options_.workers.get());
  for (const auto& n : g.nodes) {
    if (n.op != ir::Op::matmul) continue;
    const ir::Node& b = g.nodes[static_cast<std::size_t>(n.in[1])];
    if (b.op != ir::Op::input) continue;
    if (const auto it = resident.find(b.name); it != resident.end())
      fast::prepack(it->second, gemm_);
  }
}

std::shared_ptr<const ir::ReleasePlan> FastExecutor::releases(const ir::Graph& g) const {
  return last_plan(g)->releases;
}

bool FastExecutor::run(const ir::Graph& g, std::size_t i, std::vector<Tensor>& values,
                       const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const {
  const UseWorkers use(options_.workers.get());  // for the loops this node splits
  // The plan, looked up once per run of the graph (its releases first),
  // and again after a loop's body ran its own in between.
  const FusionPlan* plan = last_plan(g);
  if (i == 0) ++plan->counters->calls;
  const ir::Node& n = g.nodes[i];
  const int path = take(*plan, g, i, values, sizes, dims);
  if (n.op == ir::Op::input) return false;
  if (path < 0)
    ++plan->counters->by_reference[static_cast<std::size_t>(n.op)];
  else
    ++plan->counters->paths[static_cast<std::size_t>(path)];
  return path >= 0 && path != runtime;
}

int FastExecutor::take(const FusionPlan& plan, const ir::Graph& g, std::size_t i,
                       std::vector<Tensor>& values,
                       const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const {
  const ir::Node& n = g.nodes[i];
  if (plan.member[i]) {
    values[i] = placeholder(dtype_of(n.type.elem));
    return fused;
  }
  if (plan.deferred[i]) {  // made by what reads it: an einsum (a window), a fold (an einsum)
    values[i] = placeholder(DType::f32);
    return moves;
  }
  if (const int c = plan.grouped_at[i]; c >= 0)
    return grouped_conv(plan, g, plan.grouped[static_cast<std::size_t>(c)], values, sizes, dims);
  return compute(plan, g, i, values, sizes, dims);
}

int FastExecutor::grouped_conv(const FusionPlan& plan, const ir::Graph& g, const ir::GroupedConv& c,
                               std::vector<Tensor>& values,
                               const std::map<std::string, std::int64_t>& sizes,
                               const Dims& dims) const {
  const auto at = [](int i) { return static_cast<std::size_t>(i); };
  const ir::Node& w = g.nodes[at(c.window)];
  const Tensor& x = values[at(w.in[0])];
  const Tensor& kernel = values[at(g.nodes[at(c.split_kernel)].in[0])];
  if (fast::grouped_conv(x, ir::window_of(w), kernel, values[at(c.join)], gemm_)) return gemm;
  for (const int i : {c.window, c.split_image, c.split_kernel, c.product, c.join})
    make(plan, g, at(i), values, sizes, dims);
  for (const int i : {c.window, c.split_image, c.split_kernel, c.product})
    values[at(i)] = placeholder(DType::f32);
  return gemm;
}

void FastExecutor::make(const FusionPlan& plan, const ir::Graph& g, std::size_t i,
                        std::vector<Tensor>& values,
                        const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const {
  if (compute(plan, g, i, values, sizes, dims) >= 0) return;
  // The reference's op: the interpreter skips a node the plan defers, so
  // whatever computes it runs that too.
  static const std::map<std::string, Tensor> none;
  run_reference_node(g, i, values, none, sizes, dims, nullptr);
}

int FastExecutor::compute(const FusionPlan& plan, const ir::Graph& g, std::size_t i,
                          std::vector<Tensor>& values,
                          const std::map<std::string, std::int64_t>& sizes,
                          const Dims& dims) const {
  const ir::Node& n = g.nodes[i];
  if (const int k = plan.kernel_at[i]; k >= 0) {
    if (const int conv = plan.conv_epilogues[static_cast<std::size_t>(k)].conv; conv >= 0) {
      if (run_conv_epilogue(plan, g, static_cast<std::size_t>(k), values[i], values)) return gemm;
      // The convolution on its own, for the kernel to read.
      const auto c = static_cast<std::size_t>(conv);
      if (const int chain = plan.grouped_at[c]; chain >= 0)
        grouped_conv(plan, g, plan.grouped[static_cast<std::size_t>(chain)], values, sizes, dims);
      else
        make(plan, g, c, values, sizes, dims);
    }
    run_kernel(plan, g, static_cast<std::size_t>(k), values[i], values);
    return fused;
  }
  if (const int k = plan.reduce_at[i]; k >= 0) {
    if (run_kernel_reduced(plan, g, static_cast<std::size_t>(k), n, values[i], values))
      return fused;
    return reduce(n, values[i], values) ? reductions : -1;  // the root is there now
  }
  const auto in = [&](std::size_t k) -> const Tensor& {
    return values[static_cast<std::size_t>(n.in[k])];
  };
  // An op ir/ops.def's `fast` column gives a reason for is the reference's
  // (a new op is, until this switch has its case and the column says kRuns).
  if (ir::op_info(n.op).fast) return -1;
  Tensor& out = values[i];
  switch (n.op) {
    case ir::Op::input:  // bound by run_graph
    case ir::Op::size:
    case ir::Op::all_reduce:
    case ir::Op::loop:  // run_graph runs its body, each node offered here
    case ir::Op::loop_part:
      return runtime;
    case ir::Op::constant:
      out = Tensor::scalar(dtype_of(n.type.elem), n.number);
      return created;
    case ir::Op::literal:
      out = Tensor::from_values(dtype_of(n.type.elem), shape_of(n.type, sizes, dims), n.values);
      return created;
    case ir::Op::fill:
      return fast::fill(dtype_of(n.type.elem), shape_of(n.type, sizes, dims), n.number, out)
                 ? created
                 : -1;
    case ir::Op::arange: {
      const auto size = size_of(n.type.axes.at(0), sizes, dims);
      return size && fast::arange(*size, out) ? created : -1;
    }
    case ir::Op::argmax:
      return fast::argmax(in(0), n.axes[0], n.keep, out) ? reductions : -1;
    case ir::Op::cross_entropy:
      return fast::cross_entropy(in(0), in(1), n.axes[0], n.sub == 1, out, options_.portable)
                 ? reductions
                 : -1;
    case ir::Op::layer_norm:
    case ir::Op::rms_norm:
      return fast::normalise(in(0), n.axes[0], n.op == ir::Op::layer_norm, n.number, out)
                 ? reductions
                 : -1;
    case ir::Op::where:  // one not fused (no JIT, or integers)
      return fast::where(in(0), in(1), in(2), out) ? loops : -1;
    case ir::Op::pad: {
      const auto pad = ir::pad_of(n);
      return fast::pad(in(0), pad.axis, pad.before, pad.after, pad.value, out) ? moves : -1;
    }
    case ir::Op::concat:
    case ir::Op::stack: {
      support::InlineVector<Tensor, 8> parts;
      for (std::size_t k = 0; k < n.in.size(); ++k) parts.push_back(in(k));
      const std::span<const Tensor> xs(parts.begin(), parts.size());
      return (n.op == ir::Op::concat ? fast::concat(xs, n.axes[0], out) : fast::stack(xs, out))
                 ? moves
                 : -1;
    }
    case ir::Op::window:
      return fast::window(in(0), ir::window_of(n), out) ? moves : -1;
    case ir::Op::window_fold: {
      const auto e = static_cast<std::size_t>(n.in[0]);
      if (plan.deferred[e]) {  // its einsum, left unmade: both here
        const ir::Node& en = g.nodes[e];
        const Tensor& a = values[static_cast<std::size_t>(en.in[0])];
        const Tensor& b = values[static_cast<std::size_t>(en.in[1])];
        if (fast::folded_einsum(en, a, b, in(1).shape(), ir::window_of(n), out, gemm_)) return gemm;
        if (!fast::einsum(en, values[e], values, gemm_)) values[e] = reference_einsum(en, a, b);
      }
      return fast::window_fold(in(0), in(1).shape(), ir::window_of(n), out) ? moves : -1;
    }
    case ir::Op::sort:
    case ir::Op::argsort:
      return fast::sort(in(0), n.axes[0], n.op == ir::Op::argsort, out) ? moves : -1;
    case ir::Op::place: {  // the gradient of an index or slice: zeros around the values
      const Shape& shape = in(1).shape();
      const auto part = ir::axis_part(n);
      const std::int64_t axis = part.axis;
      const std::int64_t size = shape.at(static_cast<std::size_t>(axis));
      const std::int64_t start = part.first(size), end = part.last(size);
      Shape region = shape;
      region[static_cast<std::size_t>(axis)] = end - start;
      if (!part.fits(size) || element_count(region) != in(0).size()) return -1;
      const Tensor placed = in(0).contiguous() ? in(0) : in(0).compact();
      return fast::pad(placed.reshape(region), axis, start, size - end, 0.0, out) ? moves : -1;
    }
    case ir::Op::index:  // views, as the reference makes them: no copy
      out = reference::take(in(0), n.axes[0], ir::axis_part(n).start);
      return moves;
    case ir::Op::slice: {
      const auto part = ir::axis_part(n);
      const std::int64_t size = in(0).dim(part.axis);
      out = reference::slice(in(0), part.axis, part.first(size), part.last(size));
      return moves;
    }
    case ir::Op::gather:
      return fast::gather(in(0), in(1), out) ? moves : -1;
    case ir::Op::scatter_add:
      return fast::scatter_add(in(0), in(1), shape_of(n.type, sizes, dims), out) ? moves : -1;
    case ir::Op::matmul:
      return fast::matmul(n, values[i], values, gemm_) ? gemm : -1;
    case ir::Op::einsum:
      for (std::size_t k = 0; k < n.in.size() && n.in.size() == 2; ++k) {
        const auto w = static_cast<std::size_t>(n.in[k]);
        if (!plan.deferred[w] || values[w].size() > 0) continue;  // unmade: a placeholder
        const ir::Node& wn = g.nodes[w];
        const Tensor& x = values[static_cast<std::size_t>(wn.in[0])];
        if (fast::windowed_einsum(n, k, x, ir::window_of(wn), in(1 - k), out, gemm_)) return gemm;
        // Not a shape it takes: the window made whole after all, once, for the
        // einsums still to read it (the release plan drops it after the last).
        if (!fast::window(x, ir::window_of(wn), values[w])) {
          values[w] = reference::window(x, ir::window_of(wn));  // for the reference's einsum
          return -1;
        }
      }
      return fast::einsum(n, values[i], values, gemm_) ? gemm : -1;
    case ir::Op::unary:
      return unary(n, values[i], values) ? loops : -1;
    case ir::Op::binary:
      return binary(n, values[i], values) ? loops : -1;
    case ir::Op::reduce:
      return reduce(n, values[i], values) ? reductions : -1;
    case ir::Op::softmax:
    case ir::Op::log_softmax:
      return softmax(n, values[i], values) ? reductions : -1;
    case ir::Op::einops:
      return fast::rearrange(n, values[i], values, sizes, dims) ? moves : -1;
    case ir::Op::causal:
      return fast::causal(values[static_cast<std::size_t>(n.in[0])], values[i]) ? moves : -1;
    case ir::Op::attention:
      return fast::attention(n, in(0), in(1), in(2), n.in.size() == 4 ? &in(3) : nullptr, out,
                             options_.threads, options_.portable)
                 ? attention
                 : -1;
    case ir::Op::attention_grad:
      return fast::attention_grad(n, in(0), in(1), in(2), n.in.size() == 5 ? &in(3) : nullptr,
                                  in(n.in.size() - 1), out, options_.threads, options_.portable)
                 ? attention
                 : -1;
    case ir::Op::max_pool:
      return fast::max_pool(in(0), ir::window_of(n), out, options_.threads) ? reductions : -1;
    case ir::Op::max_pool_grad:
      return fast::max_pool_grad(in(0), in(1), ir::window_of(n), out, options_.threads) ? reductions
                                                                                        : -1;
    case ir::Op::cast:
      return n.type.elem.kind == types::ElemKind::f32 &&
                     fast::cast_to_f32(values[static_cast<std::size_t>(n.in[0])], values[i])
                 ? moves
                 : -1;
    default:  // the column's (above): tests/runtime/every_operation_test holds the two together
      break;
  }
  return -1;
}

bool FastExecutor::unary(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
  return fast::unary_f32(static_cast<ir::Unary>(n.sub), values[static_cast<std::size_t>(n.in[0])],
                         out, options_.threads, options_.portable);
}

bool FastExecutor::binary(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
  const Tensor& a = values[static_cast<std::size_t>(n.in[0])];
  const Tensor& b = values[static_cast<std::size_t>(n.in[1])];
  const auto op = static_cast<ir::Binary>(n.sub);
  const DType result = dtype_of(n.type.elem);
  if (result == DType::f32 && fast::binary_f32(op, a, b, out, options_.portable)) return true;
  return fast::binary_any(op, a, b, out);  // comparisons, logic, integers, mixed types
}

bool FastExecutor::reduce(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
  if (dtype_of(n.type.elem) != DType::f32) return false;
  const Tensor& x = values[static_cast<std::size_t>(n.in[0])];
  const auto op = static_cast<ir::Reduce>(n.sub);
  if (options_.portable && op == ir::Reduce::logsumexp && x.dtype() == DType::f32)
    return portable_logsumexp(x, n, out);
  if (x.dtype() != DType::boolean)
    return fast::reduce_f32(op, x, n.axes, n.keep, out, options_.threads, options_.portable);
  Tensor as_float;  // a bool's 0 and 1 are exact as floats: the same sums
  return fast::cast_to_f32(x, as_float) &&
         fast::reduce_f32(op, as_float, n.axes, n.keep, out, options_.threads, options_.portable);
}

// logsumexp under portable over any axes: those axes moved last, where
// reduce_f32 sums each kept position's contiguous group (the reference's,
// otherwise, is in double through libm).
bool FastExecutor::portable_logsumexp(const Tensor& x, const ir::Node& n, Tensor& out) const {
  const std::int64_t rank = x.rank();
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (const auto a : n.axes) {
    if (a < 0 || a >= rank) return false;
    reduced[static_cast<std::size_t>(a)] = true;
  }
  std::vector<std::int64_t> order, trailing;
  Shape shape;  // the node's: kept axes, and 1 for each reduced one kept
  for (std::int64_t d = 0; d < rank; ++d)
    if (!reduced[static_cast<std::size_t>(d)]) {
      order.push_back(d);
      shape.push_back(x.shape()[static_cast<std::size_t>(d)]);
    } else if (n.keep) {
      shape.push_back(1);
    }
  for (std::int64_t d = 0; d < rank; ++d)
    if (reduced[static_cast<std::size_t>(d)]) {
      trailing.push_back(static_cast<std::int64_t>(order.size()));
      order.push_back(d);
    }
  Tensor sums;
  if (!fast::reduce_f32(ir::Reduce::logsumexp, x.permute(order).compact(), trailing, false, sums,
                        options_.threads, true))
    return false;  // (empty groups: the reference's)
  out = sums.reshape(shape);
  return true;
}

bool FastExecutor::softmax(const ir::Node& n, Tensor& out,
                           const std::vector<Tensor>& values) const {
  const Tensor& x = values[static_cast<std::size_t>(n.in[0])];
  if (x.dtype() != DType::f32 || n.axes.empty()) return false;
  const bool log = n.op == ir::Op::log_softmax;
  const std::int64_t axis = n.axes[0], last = x.rank() - 1;
  if (axis == last) return fast::softmax_rows(x, log, out, options_.threads, options_.portable);
  // Another axis: the reference's, in double through libm, except under
  // portable, which can't leave a function to libm: the axis moved last,
  // its rows computed as portable's, moved back.
  if (!options_.portable || axis < 0 || axis > last) return false;
  std::vector<std::int64_t> order, back(static_cast<std::size_t>(x.rank()));
  for (std::int64_t d = 0; d <= last; ++d)
    if (d != axis) order.push_back(d);
  order.push_back(axis);
  for (std::size_t k = 0; k < order.size(); ++k)
    back[static_cast<std::size_t>(order[k])] = static_cast<std::int64_t>(k);
  Tensor rows;
  if (!fast::softmax_rows(x.permute(order).compact(), log, rows, options_.threads, true))
    return false;
  out = rows.permute(back).compact();
  return true;
}

}  // namespace ss::runtime::fastexec

namespace ss::runtime {

using fastexec::FastExecutor;

std::unique_ptr<GraphExecutor> make_fast_executor(const FastExecutorOptions& options) {
  return std::make_unique<FastExecutor>(options);
}

std::map<std::string, std::int64_t> executor_nodes(const GraphExecutor& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->nodes() : std::map<std::string, std::int64_t>{};
}

bool is_fast_executor(const GraphExecutor& executor) {
  return dynamic_cast<const FastExecutor*>(&executor) != nullptr;
}

bool executor_has_jit(const GraphExecutor& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast && fast->has_jit();
}

std::map<std::string, GraphStats> executor_functions(const GraphExecutor& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->functions() : std::map<std::string, GraphStats>{};
}

const SsJitApi* executor_jit(const GraphExecutor& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->jit_api() : nullptr;
}

FusionCounts fusion_counts(const GraphExecutor& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->counts() : FusionCounts{};
}

}  // namespace ss::runtime
