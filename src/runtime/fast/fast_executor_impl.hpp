// The fast CPU executor's class, shared by its files: fast_executor.cpp
// (each node's path, the public entry points, the ops' table) and
// fast_kernels_run.cpp (a graph's fusion plan and its compiled kernels run:
// alone, as a matmul's epilogue, or with the reduction after them).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include "ir/attributes.hpp"
#include "ir/conv_deferral.hpp"
#include "ir/conv_epilogue.hpp"
#include "ir/fusion.hpp"
#include "runtime/core/helper_threads.hpp"
#include "runtime/core/plan_store.hpp"
#include "runtime/fast/attention/fast_attention.hpp"
#include "runtime/fast/compiled_code.hpp"
#include "runtime/fast/fast_contractions.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/fast/fast_loops.hpp"
#include "runtime/fast/fast_ops.hpp"
#include "runtime/fast/gemm/sgemm.hpp"
#include "runtime/fast/jit_module.hpp"
#include "runtime/fast/jit_steps.hpp"
#include "runtime/reference/nodes.hpp"
#include "runtime/reference/ops.hpp"
#include "support/inline_vector.hpp"

namespace ss::runtime::fastexec {

// A graph's fused kernels, compiled: kept in the executor's plan store.
constexpr std::size_t kPaths = 8;  // FastExecutor::Path's
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
  std::vector<ir::FusedKernel> kernels;
  std::vector<std::vector<std::uint8_t>> inner_broadcast;  // per kernel, per input
  std::vector<SsJitKernelFn> fns;
  std::shared_ptr<const void> code;  // holds fns' object linked (CachedCode::link)
  std::vector<int> kernel_at;        // per node: the kernel it is the root of, or -1
  std::vector<bool> member;          // per node: computed inside a kernel
  std::vector<int> reduce_at;        // per node: the kernel a reduction fuses with, or -1
  // per kernel: the bias (and ReLU) over its product the GEMM may add as
  // it stores (ir::gemm_epilogue; product -1 where there is none)
  std::vector<ir::GemmEpilogue> gemm_epilogues;
  // per node: a window only einsums read (a convolution's im2col), left
  // unmade: each einsum makes it a slab at a time (fast::windowed_einsum).
  std::vector<bool> deferred;
  // per node: the grouped convolution whose join it is (an index into
  // `grouped`), or -1; the join computes the chain's deferred nodes.
  std::vector<int> grouped_at;
  std::vector<ir::GroupedConv> grouped;
  // per kernel: the convolution it is the tail of (conv -1 where none),
  // run on oneDNN with the tail as its bias and post-ops
  std::vector<ir::ConvEpilogue> conv_epilogues;
  // A member's inputs are read at its kernel's root, so they live until then.
  std::shared_ptr<const ir::ReleasePlan> releases;
};

// `t` with every element its own, in `shape` (t broadcasts into it), exact.
inline Tensor materialize(const Tensor& t, const Shape& shape) {
  return fast::expand(t, shape);
}

// A value computed inside a kernel: nobody reads it, but the interpreter
// wants a tensor of its type.
inline const Tensor& placeholder(DType dtype) {
  thread_local const Tensor f32 = Tensor::zeros(DType::f32, {0});
  thread_local const Tensor boolean = Tensor::zeros(DType::boolean, {0});
  return dtype == DType::boolean ? boolean : f32;
}

// Whether a kernel over `shape` can read an input of strides `s` (as it
// broadcasts into `shape`) a row at a time: its rows evenly spaced (an
// axis of size 1 has stride 0 here and is skipped, so a batch of one
// reads as any other), each row contiguous, or broadcast where
// `broadcast_inner` (the plan's flag); *row the distance from one row to
// the next.
inline bool kernel_rows(const Strides& s, const Shape& shape, bool broadcast_inner,
                        std::int64_t* row) {
  *row = 0;
  const std::size_t rank = shape.size();
  if (rank == 0) return true;
  const std::int64_t in_row = s[rank - 1];
  if (broadcast_inner ? in_row != 0 : (in_row != 1 && shape[rank - 1] != 1)) return false;
  std::int64_t expect = -1;  // the next wider axis's stride, once a row's is known
  for (std::size_t d = rank - 1; d-- > 0;) {
    if (expect >= 0) expect *= shape[d + 1];
    if (shape[d] == 1) continue;
    if (expect < 0) {
      expect = *row = s[d];
    } else if (s[d] != expect) {
      return false;
    }
  }
  return true;
}

struct LoopSteps;  // loop_steps.cpp

class FastExecutor final : public GraphExecutor {
 public:
  explicit FastExecutor(FastExecutorOptions options)
      : options_(std::move(options)),
        gemm_{options_.threads, options_.bf16 && !options_.portable && gemm::bf16_supported(),
              options_.portable} {
    if (options_.fuse) jit_ = JitModule::load(options_.jit_library);
    if (!options_.workers && options_.threads > 1)
      options_.workers = own_workers(std::chrono::microseconds(50));
  }

  // Whether its contractions round their inputs to bfloat16: asked, and the
  // CPU has AVX512-BF16.
  bool bf16() const { return gemm_.bf16; }

  FusionCounts counts() const;

  std::map<std::string, std::int64_t> nodes() const;

  std::map<std::string, GraphStats> functions() const;
  bool has_jit() const { return jit_.has_value(); }
  const SsJitApi* jit_api() const { return jit_ ? &jit_->api() : nullptr; }

  std::string name() const override { return "the fast executor"; }
  // At load: the graph's plan and its bodies', their kernels compiled.
  void plan(const ir::Graph& g) const override;
  std::string listing(const ir::Graph& g, std::string_view pass) const override;
  PlanCounts plan_counts() const override { return plans_.counts(); }
  void prepare(const ir::Graph& g, const std::map<std::string, Tensor>& resident) const override;

  std::shared_ptr<const ir::ReleasePlan> releases(const ir::Graph& g) const override;

  bool run(const ir::Graph& g, std::size_t i, std::vector<Tensor>& values,
           const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const override;
  bool portable_numerics() const override { return options_.portable; }
  // A loop whose body is products, fused kernels, views and joins: its
  // steps planned once for the inputs' layouts and run as straight-line
  // calls on buffers kept in the frame (loop_steps.cpp).
  bool run_loop(const LoopRun& run, const Dims& dims, WorkerContext* worker) const override;

 private:
  // `created`: values made from nothing (constants, fills, ranges);
  // `attention`: attention and its gradient as single kernels;
  // `runtime`: nodes that compute nothing (inputs' sizes, collectives),
  // which run_graph does itself.
  enum Path { gemm, fused, loops, reductions, moves, created, attention, runtime };

  // The path that computed node i, or -1 to leave it to the reference.
  int take(const FusionPlan& plan, const ir::Graph& g, std::size_t i, std::vector<Tensor>& values,
           const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const;
  // Node i on its own path, whatever the plan defers (take's body).
  int compute(const FusionPlan& plan, const ir::Graph& g, std::size_t i,
              std::vector<Tensor>& values, const std::map<std::string, std::int64_t>& sizes,
              const Dims& dims) const;
  // Node i made into values[i] whatever the plan defers: compute(), else
  // the reference's operation.
  void make(const FusionPlan& plan, const ir::Graph& g, std::size_t i, std::vector<Tensor>& values,
            const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const;
  // A grouped convolution's join: on oneDNN, else its chain's nodes in turn.
  int grouped_conv(const FusionPlan& plan, const ir::Graph& g, const ir::GroupedConv& c,
                   std::vector<Tensor>& values, const std::map<std::string, std::int64_t>& sizes,
                   const Dims& dims) const;

  bool unary(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const;

  bool binary(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const;

  // Sums, means, maxima and minima of float32 over leading or trailing axes,
  // with the reference's arithmetic (doubles, each group in row-major
  // order; max and min as std::max_element and min_element compare), so
  // the reference's bits, without its per-element gathering.
  bool reduce(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const;

  // softmax and log_softmax along the last axis, as the reference composes
  // them: x - logsumexp(x) (kept, rounded to float), then exp for softmax.
  bool softmax(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const;
  bool portable_logsumexp(const Tensor& x, const ir::Node& n, Tensor& out) const;

  // The graph's plan, made at load (made now for a graph the load didn't
  // plan: a test's). Its kernels are compiled, all in one module, when the
  // JIT is there; without kernels (nothing fuses, no JIT, or it failed) the
  // graph runs node by node.
  const FusionPlan* plan_for(const ir::Graph& g) const;
  std::shared_ptr<const FusionPlan> make_plan(const ir::Graph& g) const;
  auto maker() const {
    return [this](const ir::Graph& graph) { return make_plan(graph); };
  }
  // plan_for, remembered for the thread's current graph (fast_executor.cpp).
  const FusionPlan* last_plan(const ir::Graph& g) const;

  // A kernel's inputs as its code reads them: each through two strides (its
  // row's, and 0 or 1 along the inner axis), made so when its layout
  // doesn't allow that.
  struct KernelCall {
    // (Kept inside the call up to kInputs inputs: a steady call allocates nothing.)
    static constexpr std::size_t kInputs = 16;
    support::InlineVector<Tensor, kInputs> inputs;
    support::InlineVector<const void*, kInputs> pointers;
    support::InlineVector<std::int64_t, kInputs> outer_strides;
    Shape shape;  // the root's
    std::int64_t inner = 1, outer = 0;

    // Each input's pointer at row `from`, into `at` (pointers.size() of them).
    void at_row(std::int64_t from, const void** at) const {
      // (An input the code doesn't read, an epilogue's stand-in product, has
      // no pointer: offsetting null is undefined, so it stays null.)
      for (std::size_t j = 0; j < pointers.size(); ++j)
        at[j] = pointers[j] == nullptr
                    ? nullptr
                    : static_cast<const char*>(pointers[j]) +
                          from * outer_strides[j] *
                              static_cast<std::int64_t>(dtype_size(inputs[j].dtype()));
    }
    // Runs rows [from, to) of the kernel into `out` (row `from` first).
    void rows(SsJitKernelFn fn, std::int64_t from, std::int64_t to, float* out) const {
      support::InlineVector<const void*, kInputs> at(pointers.size());
      at_row(from, at.begin());
      fn(at.begin(), outer_strides.begin(), out, to - from, inner);
    }
  };

  // False when an input's layout isn't one the code was compiled for (an
  // input the IR types as broadcast along the inner axis isn't).
  // `stand_in`, when given, takes the place of the epilogue's product (its
  // shape, no data yet).
  // A kernel that is a convolution's tail (ir::conv_epilogue): the
  // convolution and the tail in one oneDNN call into `out`; false where
  // that can't run, the convolution then made on its own for the kernel.
  bool run_conv_epilogue(const FusionPlan& plan, const ir::Graph& g, std::size_t k, Tensor& out,
                         std::vector<Tensor>& values) const;
  static bool bind(const FusionPlan& plan, std::size_t k, const std::vector<Tensor>& values,
                   KernelCall& call, const Tensor* stand_in = nullptr);

  // One kernel over the root's shape, its rows split over the threads when
  // there is enough work (each part the same kernel on its rows).
  void run_kernel(const FusionPlan& plan, const ir::Graph& g, std::size_t k, Tensor& out,
                  std::vector<Tensor>& values) const;

  // A matmul and the kernel reading it as one loop nest: the product made a
  // block of rows at a time (matmul_in_blocks), the kernel run on each
  // block while it is in the cache. False, having made the product whole
  // into its value, where the blocks can't be had; the caller runs the
  // kernel on it then.
  bool run_epilogue(const FusionPlan& plan, const ir::Graph& g, std::size_t k, Tensor& out,
                    std::vector<Tensor>& values) const;

  // A kernel and the reduction over its root's trailing axes as one loop
  // nest: a tile of groups' rows made into a small buffer (in the cache)
  // and reduced at once, as reduce_row computes each group. False when the
  // kernel can't read its inputs or the groups are empty: then the root is
  // made whole into values[root], for the reduction to run on.
  bool run_kernel_reduced(const FusionPlan& plan, const ir::Graph& g, std::size_t k,
                          const ir::Node& n, Tensor& out, std::vector<Tensor>& values) const;

  // The steps of run.loop for the layouts of run.given, into `steps`;
  // false where the body has what they can't take.
  bool plan_steps(const LoopRun& run, const Dims& dims, LoopSteps& steps) const;

  // A kernel's steps one operation at a time, on whole tensors: the same
  // values the nodes would have given, for the layouts its code can't read.
  Tensor run_steps(const ir::FusedKernel& kernel, const Tensor* inputs) const;

  FastExecutorOptions options_;
  fast::GemmSettings gemm_;  // threads, and bfloat16 where asked and the CPU has it
  std::optional<JitModule> jit_;
  mutable std::atomic<std::int64_t> kernels_{0}, from_memory_{0}, from_store_{0}, runs_{0},
      stepped_{0}, planned_loops_{0}, jit_failures_{0};
  mutable std::mutex jit_error_mutex_;
  mutable std::string jit_error_;  // the last failure's words
  // Every plan's counters, kept after their graph is gone.
  mutable std::mutex registry_mutex_;
  mutable std::vector<std::shared_ptr<GraphCounters>> registry_;
  PlanStore<FusionPlan> plans_;
  // This executor among every one the process made (last_plan's key).
  const std::uint64_t serial_ = [] {
    static std::atomic<std::uint64_t> last{0};
    return ++last;
  }();
};

}  // namespace ss::runtime::fastexec
