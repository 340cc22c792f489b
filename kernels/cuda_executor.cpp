#include "kernels/cuda_executor.hpp"

#include <mutex>

#include "kernels/cuda_graph_replay.hpp"

namespace ss::cuda {
namespace {

using namespace detail;

class CudaExecutor final : public runtime::Accelerator {
 public:
  CudaExecutor(std::shared_ptr<Gpu> gpu, RunOptions options, bool graphs)
      : gpu_(std::move(gpu)), options_(options), replays_(gpu_, options) {
    graphs_ = graphs && gpu_->graphs();
  }

  bool run(const ir::Graph&, std::size_t, std::vector<Tensor>&,
           const std::map<std::string, std::int64_t>&, const runtime::Dims&) const override {
    return false;
  }
  std::shared_ptr<const ir::ReleasePlan> releases(const ir::Graph&) const override {
    return nullptr;
  }

  bool run_whole(const ir::Graph& g, const std::map<std::string, Tensor>& inputs,
                 const runtime::Dims& dims, runtime::WorkerContext* worker,
                 std::vector<Tensor>& outputs) const override {
    std::shared_ptr<const GraphPlan> plan;
    {
      std::lock_guard lock(g.device_plan.mutex);
      if (!g.device_plan.value) g.device_plan.value = make_plan(g);
      plan = std::static_pointer_cast<const GraphPlan>(g.device_plan.value);
    }
    std::lock_guard lock(gpu_->run_lock());  // one stream: one graph at a time
    gpu_->make_current();
    // Several workers' all-reduces go through the host: never captured.
    if (graphs_ && !worker)
      if (auto replayed = replays_.run(g, plan, inputs, dims, counts_)) {
        outputs = std::move(*replayed);
        return true;
      }
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
};

}  // namespace

std::unique_ptr<runtime::Accelerator> make_cuda_executor(CudaExecutorOptions options,
                                                         std::string* why) {
  auto gpu = Gpu::open(options.driver, options.nvrtc, options.device, options.code_cache, why);
  if (!gpu) return nullptr;
  return std::make_unique<CudaExecutor>(
      std::move(gpu), RunOptions{options.precision, options.cublas, options.deterministic},
      options.graphs && graphs_wanted());
}

// Each op the CUDA executor runs on the host, and why (null: on the
// device). Every op is a case: a new row of ir/ops.def doesn't build until
// it is decided here.
const char* cuda_runs_on_host(ir::Op op) {
  switch (op) {
    case ir::Op::sort:
      return "no device sort yet: the host's, its values copied across";
    case ir::Op::argsort:
      return "no device sort yet: the host's, its values copied across";
    case ir::Op::random:
      return "the host's counter-based draws, copied in";

    case ir::Op::window:
    case ir::Op::window_fold:
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
    case ir::Op::layer_norm:
    case ir::Op::rms_norm:
    case ir::Op::concat:
    case ir::Op::stack:
    case ir::Op::pad:
    case ir::Op::literal:
    case ir::Op::arange:
    case ir::Op::scatter_add:
    case ir::Op::place:
    case ir::Op::take_along:
    case ir::Op::all_reduce:
    case ir::Op::loop:
    case ir::Op::loop_part:
    case ir::Op::attention:
    case ir::Op::attention_grad:
    case ir::Op::max_pool:
    case ir::Op::max_pool_grad:
      return nullptr;
  }
  return nullptr;
}

bool is_cuda_executor(const runtime::Accelerator& accelerator) {
  return dynamic_cast<const CudaExecutor*>(&accelerator) != nullptr;
}

CudaCounts cuda_counts(const runtime::Accelerator& accelerator) {
  const auto* e = dynamic_cast<const CudaExecutor*>(&accelerator);
  return e ? e->counts() : CudaCounts{};
}

}  // namespace ss::cuda
