// The reference runtime with --precision bf16's roundings where the CUDA
// executor makes them (kernels/cuda_bf16_plan.hpp): each GEMM's operands
// rounded to bf16, as cuBLAS's tensor cores take them, and each value the
// plan keeps in bf16 rounded once it is made; everything else, sums
// included, the reference's own. Run a graph through it (run_graph's
// executor) to see what bf16's roundings alone cost, apart from the
// order of float32 sums: tests/kernels/cuda_bf16_test.cpp holds them to
// docs/numerics.md's cuda-reduced row.
#pragma once

#include <map>
#include <memory>

#include "kernels/cuda_bf16_plan.hpp"
#include "kernels/cuda_graph_run.hpp"
#include "runtime/core/dtype.hpp"
#include "runtime/reference/interpreter.hpp"

namespace ss::test {

// The amplitude of made_up_inputs' sines for the checks under bf16 (and
// tf32): activations of order one, as a model keeps them. docs/numerics.md's
// cuda-reduced row bounds such values; larger ones whose results cancel
// (logits of 1e3 differenced into a loss) lose more (cuda_bf16_test.cpp).
inline constexpr double kBf16InputScale = 0.25;

class Bf16Roundings : public runtime::GraphExecutor {
 public:
  std::string name() const override { return "the reference with bf16's roundings"; }
  bool run(const ir::Graph& g, std::size_t i, std::vector<runtime::Tensor>& values,
           const std::map<std::string, std::int64_t>& sizes,
           const runtime::Dims& dims) const override {
    const ir::Node& n = g.nodes[i];
    if (n.op == ir::Op::input) return false;  // the reference reads it
    auto& plan = plans_[&g];
    if (!plan) plan = cuda::detail::make_plan(g);
    const bool gemm = cuda::bf16_gemm(n);
    std::vector<runtime::Tensor> operands;  // a GEMM's, as they were
    if (gemm)
      for (const int k : n.in) {
        operands.push_back(values[static_cast<std::size_t>(k)]);
        values[static_cast<std::size_t>(k)] = rounded(values[static_cast<std::size_t>(k)]);
      }
    runtime::run_reference_node(g, i, values, {}, sizes, dims, nullptr);
    if (gemm)
      for (std::size_t k = 0; k < n.in.size(); ++k)
        values[static_cast<std::size_t>(n.in[k])] = operands[k];
    if (plan->bf16_storage[i]) values[i] = rounded(values[i]);
    return true;
  }
  std::shared_ptr<const ir::ReleasePlan> releases(const ir::Graph&) const override {
    return nullptr;  // every node reads its inputs where it runs
  }

 private:
  static runtime::Tensor rounded(const runtime::Tensor& x) {
    if (x.dtype() != runtime::DType::f32) return x;
    auto v = x.values();
    for (double& e : v)
      e = runtime::bfloat_to_float(runtime::float_to_bfloat(static_cast<float>(e)));
    return runtime::Tensor::from_values(x.dtype(), x.shape(), v);
  }
  mutable std::map<const ir::Graph*, std::shared_ptr<const cuda::detail::GraphPlan>> plans_;
};

}  // namespace ss::test
