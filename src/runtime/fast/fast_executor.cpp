#include "runtime/fast/fast_executor.hpp"

#include <algorithm>
#include <array>
#include <atomic>

#include "ir/attributes.hpp"
#include "ir/fusion.hpp"
#include "runtime/core/helper_threads.hpp"
#include "runtime/fast/compiled_code.hpp"
#include "runtime/fast/fast_contractions.hpp"
#include "runtime/fast/fast_loops.hpp"
#include "runtime/fast/fast_ops.hpp"
#include "runtime/fast/jit_module.hpp"
#include "runtime/fast/jit_steps.hpp"
#include "runtime/reference/ops.hpp"

namespace ss::runtime {
namespace {

// A graph's fused kernels, compiled: kept in the graph's executor cache.
constexpr std::size_t kPaths = 7;  // FastExecutor::Path's
using fast::kMinElements;
constexpr std::size_t kOps = static_cast<std::size_t>(ir::Op::all_reduce) + 1;

// What ran one graph's nodes, over its runs.
struct GraphCounters {
  std::string name;
  std::atomic<std::int64_t> calls{0};
  std::int64_t kernels = 0;
  std::array<std::atomic<std::int64_t>, kPaths> paths{};
  std::array<std::atomic<std::int64_t>, kOps> by_reference{};
};

struct FusionPlan {
  std::shared_ptr<GraphCounters> counters;
  std::size_t nodes = 0;  // the graph's node count when planned
  std::vector<ir::FusedKernel> kernels;
  std::vector<std::vector<std::uint8_t>> inner_broadcast;  // per kernel, per input
  std::vector<SsJitKernelFn> fns;
  std::vector<int> kernel_at;  // per node: the kernel it is the root of, or -1
  std::vector<bool> member;    // per node: computed inside a kernel
  std::vector<int> reduce_at;  // per node: the kernel a reduction fuses with, or -1
  // A member's inputs are read at its kernel's root, so they live until then.
  std::shared_ptr<const ir::ReleasePlan> releases;
};

// `t` with every element its own, in `shape` (t broadcasts into it), exact.
Tensor materialize(const Tensor& t, const Shape& shape) {
  return fast::expand(t, shape);
}

// A value computed inside a kernel: nobody reads it, but the interpreter
// wants a tensor of its type.
const Tensor& placeholder(DType dtype) {
  thread_local const Tensor f32 = Tensor::zeros(DType::f32, {0});
  thread_local const Tensor boolean = Tensor::zeros(DType::boolean, {0});
  return dtype == DType::boolean ? boolean : f32;
}

class FastExecutor final : public Accelerator {
 public:
  explicit FastExecutor(FastExecutorOptions options) : options_(std::move(options)) {
    if (options_.fuse) jit_ = JitModule::load(options_.jit_library);
  }

  FusionCounts counts() const {
    return {kernels_.load(), runs_.load(), stepped_.load(), from_memory_.load(),
            from_store_.load()};
  }

  std::map<std::string, std::int64_t> nodes() const {
    std::map<std::string, std::int64_t> out;
    for (const auto& [name, f] : functions())
      for (const auto& [path, count] : f.nodes) out[path] += count;
    return out;
  }

  std::map<std::string, GraphStats> functions() const {
    static const char* const names[kPaths] = {"gemm",  "fused",   "loops",  "reductions",
                                              "moves", "created", "runtime"};
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
  bool has_jit() const { return jit_.has_value(); }
  const SsJitApi* jit_api() const { return jit_ ? &jit_->api() : nullptr; }

  std::shared_ptr<const ir::ReleasePlan> releases(const ir::Graph& g) const override {
    return plan_for(g)->releases;  // null without kernels: every node reads where it runs
  }

  bool run(const ir::Graph& g, std::size_t i, std::vector<Tensor>& values,
           const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const override {
    // The plan, looked up once per run of the graph (node 0 comes first).
    thread_local const FusionPlan* plan = nullptr;
    if (i == 0) {
      plan = plan_for(g);
      ++plan->counters->calls;
    }
    const ir::Node& n = g.nodes[i];
    const int path = take(*plan, g, i, values, sizes, dims);
    if (n.op == ir::Op::input) return false;
    if (path < 0)
      ++plan->counters->by_reference[static_cast<std::size_t>(n.op)];
    else
      ++plan->counters->paths[static_cast<std::size_t>(path)];
    return path >= 0 && path != runtime;
  }

 private:
  // `created`: values made from nothing (constants, fills, ranges);
  // `runtime`: nodes that compute nothing (inputs' sizes, collectives),
  // which run_graph does itself.
  enum Path { gemm, fused, loops, reductions, moves, created, runtime };

  // The path that computed node i, or -1 to leave it to the reference.
  int take(const FusionPlan& plan, const ir::Graph& g, std::size_t i, std::vector<Tensor>& values,
           const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const {
    const ir::Node& n = g.nodes[i];
    if (plan.member[i]) {
      values[i] = placeholder(dtype_of(n.type.elem));
      return fused;
    }
    if (const int k = plan.kernel_at[i]; k >= 0) {
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
    Tensor& out = values[i];
    switch (n.op) {
      case ir::Op::input:  // bound by run_graph
      case ir::Op::size:
      case ir::Op::all_reduce:
        return runtime;
      case ir::Op::random:
      case ir::Op::take_along:
        return -1;  // fast_leaves_to_reference says why
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
        return fast::cross_entropy(in(0), in(1), n.axes[0], n.sub == 1, out) ? reductions : -1;
      case ir::Op::layer_norm:
      case ir::Op::rms_norm:
        return fast::normalise(in(0), n.axes[0], n.op == ir::Op::layer_norm, out) ? reductions : -1;
      case ir::Op::where:  // one not fused (no JIT, or integers)
        return fast::where(in(0), in(1), in(2), out) ? loops : -1;
      case ir::Op::pad: {
        const auto pad = ir::pad_of(n);
        return fast::pad(in(0), pad.axis, pad.before, pad.after, pad.value, out) ? moves : -1;
      }
      case ir::Op::concat:
      case ir::Op::stack: {
        std::vector<Tensor> xs;
        for (std::size_t k = 0; k < n.in.size(); ++k) xs.push_back(in(k));
        return (n.op == ir::Op::concat ? fast::concat(xs, n.axes[0], out) : fast::stack(xs, out))
                   ? moves
                   : -1;
      }
      case ir::Op::window:
        return fast::window(in(0), ir::window_of(n), out) ? moves : -1;
      case ir::Op::window_fold:
        return fast::window_fold(in(0), in(1).shape(), ir::window_of(n), out) ? moves : -1;
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
        return fast::matmul(n, values[i], values, options_.threads) ? gemm : -1;
      case ir::Op::einsum:
        return fast::einsum(n, values[i], values, options_.threads) ? gemm : -1;
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
      case ir::Op::cast:
        return n.type.elem.kind == types::ElemKind::f32 &&
                       fast::cast_to_f32(values[static_cast<std::size_t>(n.in[0])], values[i])
                   ? moves
                   : -1;
    }
    return -1;
  }

  bool unary(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
    return fast::unary_f32(static_cast<ir::Unary>(n.sub), values[static_cast<std::size_t>(n.in[0])],
                           out, options_.threads);
  }

  bool binary(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
    const Tensor& a = values[static_cast<std::size_t>(n.in[0])];
    const Tensor& b = values[static_cast<std::size_t>(n.in[1])];
    const auto op = static_cast<ir::Binary>(n.sub);
    const DType result = dtype_of(n.type.elem);
    if (result == DType::f32 && fast::binary_f32(op, a, b, out)) return true;
    return fast::binary_any(op, a, b, out);  // comparisons, logic, integers, mixed types
  }

  // Sums, means, maxima and minima of float32 over leading or trailing axes,
  // with the reference's arithmetic (doubles, each group in row-major
  // order; max and min as std::max_element and min_element compare), so
  // the reference's bits, without its per-element gathering.
  bool reduce(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
    if (dtype_of(n.type.elem) != DType::f32) return false;
    const Tensor& x = values[static_cast<std::size_t>(n.in[0])];
    const auto op = static_cast<ir::Reduce>(n.sub);
    if (x.dtype() != DType::boolean)
      return fast::reduce_f32(op, x, n.axes, n.keep, out, options_.threads);
    Tensor as_float;  // a bool's 0 and 1 are exact as floats: the same sums
    return fast::cast_to_f32(x, as_float) &&
           fast::reduce_f32(op, as_float, n.axes, n.keep, out, options_.threads);
  }

  // softmax and log_softmax along the last axis, as the reference composes
  // them: x - logsumexp(x) (kept, rounded to float), then exp for softmax.
  bool softmax(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
    const Tensor& x = values[static_cast<std::size_t>(n.in[0])];
    if (x.dtype() != DType::f32 || n.axes.empty() || n.axes[0] != x.rank() - 1) return false;
    Tensor lse, shifted;
    if (!fast::reduce_f32(ir::Reduce::logsumexp, x, n.axes, true, lse, options_.threads) ||
        !fast::binary_f32(ir::Binary::sub, x, lse, shifted))
      return false;
    if (n.op == ir::Op::log_softmax) {
      out = std::move(shifted);
      return true;
    }
    return fast::unary_f32(ir::Unary::exp, shifted, out, options_.threads);
  }

  // The graph's plan: made (and its kernels compiled, all in one module,
  // when the JIT is there) the first time the graph runs. Without kernels
  // (nothing fuses, no JIT, or it failed) the graph runs node by node.
  const FusionPlan* plan_for(const ir::Graph& g) const {
    std::lock_guard lock(g.executor_cache.mutex);
    if (auto* p = static_cast<const FusionPlan*>(g.executor_cache.value.get());
        p && p->nodes == g.nodes.size())
      return p;
    auto plan = std::make_shared<FusionPlan>();
    plan->counters = std::make_shared<GraphCounters>();
    plan->counters->name = g.name;
    {
      std::lock_guard registry(registry_mutex_);
      registry_.push_back(plan->counters);
    }
    plan->nodes = g.nodes.size();
    plan->kernel_at.assign(g.nodes.size(), -1);
    plan->member.assign(g.nodes.size(), false);
    plan->reduce_at.assign(g.nodes.size(), -1);
    auto kernels = jit_ ? ir::plan_fusion(g) : std::vector<ir::FusedKernel>{};
    std::vector<std::vector<SsJitStep>> steps(kernels.size());
    std::vector<SsJitKernelDesc> descs;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const ir::FusedKernel& kernel = kernels[k];
      const auto& flags = plan->inner_broadcast.emplace_back(ir::inner_broadcast(g, kernel));
      steps[k] = jit_steps(kernel.steps);
      descs.push_back({steps[k].data(), static_cast<std::int32_t>(steps[k].size()),
                       static_cast<std::int32_t>(kernel.inputs.size()), flags.data()});
    }
    std::vector<SsJitKernelFn> fns;
    if (!kernels.empty()) {
      const SsJitApi& api = jit_->api();
      const auto compile = [&](const std::string& prefix, std::string* object, std::string* error) {
        return compile_with(
            [&](auto write, void* context, char* why, std::size_t size) {
              return api.compile_elementwise(descs.data(), static_cast<std::int32_t>(descs.size()),
                                             prefix.c_str(), write, context, why, size);
            },
            object, error);
      };
      std::string error;
      if (auto code = cached_code(api, kernel_identity(api, descs), static_cast<int>(descs.size()),
                                  compile, options_.code_cache, &error)) {
        for (void* f : code->fns) fns.push_back(reinterpret_cast<SsJitKernelFn>(f));
        const auto n = static_cast<std::int64_t>(kernels.size());
        (code->origin == CodeOrigin::compiled ? kernels_
         : code->origin == CodeOrigin::memory ? from_memory_
                                              : from_store_) += n;
      } else {
        kernels.clear();  // node by node, as without the JIT
      }
    }
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const auto root = static_cast<std::size_t>(kernels[k].root);
      if (kernels[k].reduce >= 0) {  // run with its reduction, the root never stored
        plan->reduce_at[static_cast<std::size_t>(kernels[k].reduce)] = static_cast<int>(k);
        plan->member[root] = true;
      } else {
        plan->kernel_at[root] = static_cast<int>(k);
      }
      for (const int m : kernels[k].members) plan->member[static_cast<std::size_t>(m)] = true;
      if (kernels[k].epilogue >= 0)  // the product is made inside the kernel's run
        plan->member[static_cast<std::size_t>(
            kernels[k].inputs[static_cast<std::size_t>(kernels[k].epilogue)])] = true;
    }
    if (!kernels.empty()) {
      std::vector<int> read_at(g.nodes.size());
      for (std::size_t i = 0; i < read_at.size(); ++i) read_at[i] = static_cast<int>(i);
      for (const auto& kernel : kernels) {
        const int at = kernel.reduce >= 0 ? kernel.reduce : kernel.root;
        for (const int m : kernel.members) read_at[static_cast<std::size_t>(m)] = at;
        read_at[static_cast<std::size_t>(kernel.root)] = at;
        if (kernel.epilogue >= 0)
          read_at[static_cast<std::size_t>(
              kernel.inputs[static_cast<std::size_t>(kernel.epilogue)])] = at;
      }
      plan->releases = std::make_shared<const ir::ReleasePlan>(ir::plan_releases(g, read_at));
    }
    plan->counters->kernels = static_cast<std::int64_t>(kernels.size());
    plan->kernels = std::move(kernels);
    plan->fns = std::move(fns);
    g.executor_cache.value = plan;
    return plan.get();
  }

  // A kernel's inputs as its code reads them: each through two strides (its
  // row's, and 0 or 1 along the inner axis), made so when its layout
  // doesn't allow that.
  struct KernelCall {
    std::vector<Tensor> inputs;
    std::vector<const void*> pointers;
    std::vector<std::int64_t> outer_strides;
    Shape shape;  // the root's
    std::int64_t inner = 1, outer = 0;

    // Runs rows [from, to) of the kernel into `out` (row `from` first).
    void rows(SsJitKernelFn fn, std::int64_t from, std::int64_t to, float* out) const {
      std::vector<const void*> at(pointers.size());
      for (std::size_t j = 0; j < pointers.size(); ++j)
        at[j] = static_cast<const char*>(pointers[j]) +
                from * outer_strides[j] * static_cast<std::int64_t>(dtype_size(inputs[j].dtype()));
      fn(at.data(), outer_strides.data(), out, to - from, inner);
    }
  };

  // False when an input's layout isn't one the code was compiled for (an
  // input the IR types as broadcast along the inner axis isn't).
  // `stand_in`, when given, takes the place of the epilogue's product (its
  // shape, no data yet).
  static bool bind(const FusionPlan& plan, std::size_t k, const std::vector<Tensor>& values,
                   KernelCall& call, const Tensor* stand_in = nullptr) {
    const ir::FusedKernel& kernel = plan.kernels[k];
    const auto& flags = plan.inner_broadcast[k];
    for (std::size_t j = 0; j < kernel.inputs.size(); ++j) {
      const bool product = stand_in && static_cast<int>(j) == kernel.epilogue;
      call.inputs.push_back(product ? *stand_in
                                    : values[static_cast<std::size_t>(kernel.inputs[j])]);
      call.shape = reference::broadcast_shapes(call.shape, call.inputs.back().shape());
    }
    const Shape& shape = call.shape;
    const std::size_t rank = shape.size();
    call.inner = rank ? shape[rank - 1] : 1;
    call.outer = call.inner ? element_count(shape) / call.inner : 0;
    for (std::size_t j = 0; j < call.inputs.size(); ++j) {
      Tensor& t = call.inputs[j];
      const auto fits = [&](const std::vector<std::int64_t>& s) {
        if (rank == 0) return true;
        const std::int64_t in_row = s[rank - 1];
        if (flags[j] ? in_row != 0 : (in_row != 1 && call.inner != 1)) return false;
        std::int64_t expect = rank >= 2 ? s[rank - 2] : 0;
        for (std::size_t d = rank - 2; rank >= 3 && d-- > 0;) {
          expect *= shape[d + 1];
          if (s[d] != expect) return false;
        }
        return true;
      };
      auto s = broadcast_strides(t, rank);
      if (!fits(s)) {
        t = materialize(t, shape);
        s = broadcast_strides(t, rank);
      }
      if (!fits(s)) return false;
      call.pointers.push_back(t.raw());
      call.outer_strides.push_back(rank >= 2 ? s[rank - 2] : 0);
    }
    return true;
  }

  // One kernel over the root's shape, its rows split over the threads when
  // there is enough work (each part the same kernel on its rows).
  void run_kernel(const FusionPlan& plan, const ir::Graph& g, std::size_t k, Tensor& out,
                  std::vector<Tensor>& values) const {
    if (plan.kernels[k].epilogue >= 0 && run_epilogue(plan, g, k, out, values)) return;
    KernelCall call;
    if (!bind(plan, k, values, call)) {
      out = run_steps(plan.kernels[k], call.inputs);
      return;
    }
    out = Tensor::uninitialized(DType::f32, call.shape);
    auto* o = static_cast<float*>(out.raw());
    for_rows(call.outer, kMinElements / std::max<std::int64_t>(1, call.inner), options_.threads,
             [&](std::int64_t from, std::int64_t to) {
               call.rows(plan.fns[k], from, to, o + from * call.inner);
             });
    ++runs_;
  }

  // A matmul and the kernel reading it as one loop nest: the product made a
  // block of rows at a time (matmul_in_blocks), the kernel run on each
  // block while it is in the cache. False, having made the product whole
  // into its value, where the blocks can't be had; the caller runs the
  // kernel on it then.
  bool run_epilogue(const FusionPlan& plan, const ir::Graph& g, std::size_t k, Tensor& out,
                    std::vector<Tensor>& values) const {
    const ir::FusedKernel& kernel = plan.kernels[k];
    const auto product =
        static_cast<std::size_t>(kernel.inputs[static_cast<std::size_t>(kernel.epilogue)]);
    const ir::Node& m = g.nodes[product];
    const Tensor& a = values[static_cast<std::size_t>(m.in[0])];
    const Tensor& b = values[static_cast<std::size_t>(m.in[1])];
    KernelCall call;
    bool ran = false;
    if (b.rank() == 2 && a.rank() >= 1) {
      Shape shape(a.shape().begin(), a.shape().end() - 1);
      shape.push_back(b.dim(1));
      const Tensor stand_in = Tensor::borrow(nullptr, DType::f32, shape);
      if (bind(plan, k, values, call, &stand_in) && call.inner == b.dim(1)) {
        out = Tensor::uninitialized(DType::f32, call.shape);
        auto* o = static_cast<float*>(out.raw());
        const auto j = static_cast<std::size_t>(kernel.epilogue);
        std::vector<std::int64_t> strides = call.outer_strides;
        strides[j] = call.inner;  // the tile's rows
        ran = fast::matmul_in_blocks(
            a, b, options_.threads, [&](std::int64_t r0, std::int64_t r1, const float* tile) {
              std::vector<const void*> at(call.pointers.size());
              for (std::size_t i = 0; i < at.size(); ++i)
                at[i] = i == j
                            ? static_cast<const void*>(tile)
                            : static_cast<const char*>(call.pointers[i]) +
                                  r0 * call.outer_strides[i] *
                                      static_cast<std::int64_t>(dtype_size(call.inputs[i].dtype()));
              plan.fns[k](at.data(), strides.data(), o + r0 * call.inner, r1 - r0, call.inner);
            });
      }
    }
    if (ran) {
      ++runs_;
      return true;
    }
    // The product whole, as the node would have made it, for the kernel to read.
    Tensor& made = values[product];
    if (!fast::matmul(m, made, values, options_.threads)) made = reference::matmul(a, b);
    return false;
  }

  // A kernel and the reduction over its root's trailing axes as one loop
  // nest: a tile of groups' rows made into a small buffer (in the cache)
  // and reduced at once, as reduce_row computes each group. False when the
  // kernel can't read its inputs or the groups are empty: then the root is
  // made whole into values[root], for the reduction to run on.
  bool run_kernel_reduced(const FusionPlan& plan, const ir::Graph& g, std::size_t k,
                          const ir::Node& n, Tensor& out, std::vector<Tensor>& values) const {
    const ir::FusedKernel& kernel = plan.kernels[k];
    KernelCall call;
    const auto op = static_cast<ir::Reduce>(n.sub);
    std::int64_t group = 1;
    Shape shape;
    const bool bound = bind(plan, k, values, call);
    for (std::size_t d = 0; d < call.shape.size(); ++d) {
      const bool reduced =
          std::find(n.axes.begin(), n.axes.end(), static_cast<std::int64_t>(d)) != n.axes.end();
      if (reduced) group *= call.shape[d];
      if (!reduced)
        shape.push_back(call.shape[d]);
      else if (n.keep)
        shape.push_back(1);
    }
    if (!bound || group == 0 || call.inner == 0 || group % call.inner != 0) {
      if (bound) {
        run_kernel(plan, g, k, values[static_cast<std::size_t>(kernel.root)], values);
      } else {
        values[static_cast<std::size_t>(kernel.root)] = run_steps(kernel, call.inputs);
      }
      return false;
    }
    const std::int64_t kept = element_count(call.shape) / group;
    const std::int64_t rows_per_group = group / call.inner;
    out = Tensor::uninitialized(DType::f32, shape);
    auto* o = static_cast<float*>(out.raw());
    // Groups a tile holds: about 16K floats, at least one group.
    const std::int64_t tile = std::max<std::int64_t>(1, (1 << 14) / group);
    for_rows(kept, std::max<std::int64_t>(1, kMinElements / group), options_.threads,
             [&](std::int64_t r0, std::int64_t r1) {
               std::vector<float> buffer(static_cast<std::size_t>(std::min(tile, r1 - r0) * group));
               for (std::int64_t t0 = r0; t0 < r1; t0 += tile) {
                 const std::int64_t t1 = std::min(r1, t0 + tile);
                 call.rows(plan.fns[k], t0 * rows_per_group, t1 * rows_per_group, buffer.data());
                 for (std::int64_t r = t0; r < t1; ++r)
                   o[r] = fast::reduce_row(op, buffer.data() + (r - t0) * group, group);
               }
             });
    ++runs_;
    return true;
  }

  // A kernel's steps one operation at a time, on whole tensors: the same
  // values the nodes would have given, for the layouts its code can't read.
  Tensor run_steps(const ir::FusedKernel& kernel, const std::vector<Tensor>& inputs) const {
    std::vector<Tensor> v;
    for (const auto& s : kernel.steps) {
      switch (s.kind) {
        case ir::FusedStep::Kind::load:
        case ir::FusedStep::Kind::load_bool:
          v.push_back(inputs[static_cast<std::size_t>(s.a)]);
          break;
        case ir::FusedStep::Kind::constant:
          v.push_back(Tensor::scalar(DType::f32, s.value));
          break;
        case ir::FusedStep::Kind::unary:
          v.push_back(
              reference::unary(static_cast<ir::Unary>(s.sub), v[static_cast<std::size_t>(s.a)]));
          break;
        case ir::FusedStep::Kind::binary:
          v.push_back(reference::binary(static_cast<ir::Binary>(s.sub),
                                        v[static_cast<std::size_t>(s.a)],
                                        v[static_cast<std::size_t>(s.b)]));
          break;
        case ir::FusedStep::Kind::where:
          v.push_back(reference::where(v[static_cast<std::size_t>(s.a)],
                                       v[static_cast<std::size_t>(s.b)],
                                       v[static_cast<std::size_t>(s.c)]));
          break;
      }
    }
    ++stepped_;
    return v.back();
  }

  FastExecutorOptions options_;
  std::optional<JitModule> jit_;
  mutable std::atomic<std::int64_t> kernels_{0}, from_memory_{0}, from_store_{0}, runs_{0},
      stepped_{0};
  // Every plan's counters, kept after their graph is gone.
  mutable std::mutex registry_mutex_;
  mutable std::vector<std::shared_ptr<GraphCounters>> registry_;
};

}  // namespace

std::unique_ptr<Accelerator> make_fast_executor(const FastExecutorOptions& options) {
  return std::make_unique<FastExecutor>(options);
}

// Each op the fast executor leaves to the reference, and why (null: it runs
// it). Every op is a case: a new row of ir/ops.def doesn't build until it
// is decided here.
const char* fast_leaves_to_reference(ir::Op op) {
  switch (op) {
    case ir::Op::random:
      return "its draws are the reference's counter-based ones, element by element";
    case ir::Op::take_along:
      return "sort's gradient: the reference's loop serves";
    case ir::Op::input:
    case ir::Op::constant:
    case ir::Op::size:
    case ir::Op::fill:
    case ir::Op::unary:
    case ir::Op::binary:
    case ir::Op::where:
    case ir::Op::cast:
    case ir::Op::matmul:
    case ir::Op::reduce:
    case ir::Op::argmax:
    case ir::Op::softmax:
    case ir::Op::log_softmax:
    case ir::Op::cross_entropy:
    case ir::Op::causal:
    case ir::Op::gather:
    case ir::Op::index:
    case ir::Op::slice:
    case ir::Op::einops:
    case ir::Op::einsum:
    case ir::Op::sort:
    case ir::Op::argsort:
    case ir::Op::layer_norm:
    case ir::Op::rms_norm:
    case ir::Op::concat:
    case ir::Op::stack:
    case ir::Op::pad:
    case ir::Op::literal:
    case ir::Op::arange:
    case ir::Op::scatter_add:
    case ir::Op::place:
    case ir::Op::window:
    case ir::Op::window_fold:
    case ir::Op::all_reduce:
      return nullptr;
  }
  return nullptr;
}

std::map<std::string, std::int64_t> executor_nodes(const Accelerator& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->nodes() : std::map<std::string, std::int64_t>{};
}

bool executor_has_jit(const Accelerator& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast && fast->has_jit();
}

std::map<std::string, GraphStats> executor_functions(const Accelerator& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->functions() : std::map<std::string, GraphStats>{};
}

const SsJitApi* executor_jit(const Accelerator& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->jit_api() : nullptr;
}

FusionCounts fusion_counts(const Accelerator& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->counts() : FusionCounts{};
}

}  // namespace ss::runtime
