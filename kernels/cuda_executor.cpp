#include "kernels/cuda_executor.hpp"

#include <mutex>

#include "ir/fusion.hpp"
#include "runtime/core/plan_store.hpp"

#include "kernels/cuda_graph_replay.hpp"

namespace ss::cuda {
namespace {

using namespace detail;

class CudaExecutor final : public runtime::GraphExecutor {
 public:
  CudaExecutor(std::shared_ptr<Gpu> gpu, RunOptions options, bool graphs)
      : gpu_(std::move(gpu)), options_(options), replays_(gpu_, options) {
    graphs_ = graphs && gpu_->graphs();
  }

  std::string name() const override { return "the CUDA executor"; }

  // At load: the graph's plan (its bodies' with it, and the bf16 plan),
  // and its fused kernels compiled through the code cache. A kernel that
  // fails to compile is left for the call, which reports it (E1910).
  void plan(const ir::Graph& g) const override {
    const auto plan = plans_.get(g, make_plan, true);
    std::lock_guard lock(gpu_->run_lock());
    gpu_->make_current();
    compile(*plan);
  }
  std::string listing(const ir::Graph& g, std::string_view pass) const override {
    const GraphPlan& p = *plans_.get(g, make_plan, false);
    if (pass == "fuse") return ir::print_fusion(g, p.kernels);
    return "graph " + g.name + "\n  on " + name() + "\n" + ir::print_kernels(p.kernels) +
           ir::print_releases(p.releases);
  }
  runtime::PlanCounts plan_counts() const override { return plans_.counts(); }
  bool runs_whole_graphs() const override { return true; }

  std::shared_ptr<const ir::ReleasePlan> releases(const ir::Graph&) const override {
    return nullptr;
  }

  bool run_whole(const ir::Graph& g, const std::map<std::string, Tensor>& inputs,
                 const runtime::Dims& dims, runtime::WorkerContext* worker,
                 std::vector<Tensor>& outputs) const override {
    const std::shared_ptr<const GraphPlan> plan = plans_.get(g, make_plan, false);
    std::lock_guard lock(gpu_->run_lock());  // one stream: one graph at a time
    gpu_->make_current();
    // Several workers' all-reduces go through the host: never captured.
    if (graphs_ && !worker && replays_.run(g, plan, inputs, dims, counts_, outputs)) return true;
    outputs = GraphRun(gpu_, g, *plan, inputs, dims, worker, options_, counts_).run();
    return true;
  }

  CudaCounts counts() const {
    std::lock_guard lock(gpu_->run_lock());
    CudaCounts c;
    c.nodes = counts_.nodes;
    c.graphs = counts_.graphs;
    c.fused_kernels = counts_.fused;
    const GpuStats s = gpu_->stats();
    c.allocations = s.allocations;
    c.reused = s.reused;
    c.kernels_compiled = s.kernels_compiled;
    c.kernels_from_store = s.kernels_from_store;
    c.cublas = options_.cublas && gpu_->blas();
    c.cudnn = options_.cublas && gpu_->dnn();
    const GraphCounts& r = replays_.counts();
    c.graph_captures = r.captures;
    c.graph_replays = r.replays;
    c.graph_uncaptured = r.uncaptured;
    c.graph_moved_out = r.moved_out;
    return c;
  }

 private:
  std::shared_ptr<Gpu> gpu_;
  RunOptions options_;
  bool graphs_ = false;
  mutable Counts counts_;         // under the GPU's run lock
  mutable GraphReplays replays_;  // under the GPU's run lock
  runtime::PlanStore<GraphPlan> plans_;

  // A plan's fused kernels and its bodies', as its runs will ask for them
  // (the bf16 variants the plan keeps with them), under the run lock.
  void compile(const GraphPlan& plan) const {
    try {
      for (std::size_t k = 0; k < plan.kernels.size(); ++k) {
        (void)gpu_->kernel(plan.sources[k], plan.names[k]);
        if (!plan.bf16_names[k].empty() && options_.precision == Precision::bf16)
          (void)gpu_->kernel(plan.bf16_sources[k], plan.bf16_names[k]);
      }
    } catch (const std::exception&) {
      return;  // the call that runs it reports the failure as its diagnostic
    }
    for (const auto& body : plan.bodies)
      if (body) compile(*body);
  }
};

}  // namespace

std::unique_ptr<runtime::GraphExecutor> make_cuda_executor(CudaExecutorOptions options,
                                                           std::string* why) {
  auto gpu = Gpu::open(options.driver, options.nvrtc, options.device, options.code_cache, why);
  if (!gpu) return nullptr;
  return std::make_unique<CudaExecutor>(
      std::move(gpu), RunOptions{options.precision, options.cublas, options.deterministic},
      options.graphs && graphs_wanted());
}

bool is_cuda_executor(const runtime::GraphExecutor& executor) {
  return dynamic_cast<const CudaExecutor*>(&executor) != nullptr;
}

CudaCounts cuda_counts(const runtime::GraphExecutor& executor) {
  const auto* e = dynamic_cast<const CudaExecutor*>(&executor);
  return e ? e->counts() : CudaCounts{};
}

}  // namespace ss::cuda
