// The optimisers (SGD, Adam, AdamW) as the IR sees them: an optimiser is
// a few scalar settings, a step count and per-parameter state tensors, all
// graph inputs named `opt.lr`, `opt.step`, `opt.exp_avg.w1`, ...; one
// update is nodes appended to the graph, computing what PyTorch's
// optimisers compute (torch.optim, single-tensor, non-fused paths).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/graph.hpp"

namespace ss::ir {

struct OptimizerSpec {
  std::string kind;                                      // SGD, Adam, AdamW
  std::vector<std::pair<std::string, double>> settings;  // in order, with PyTorch's defaults
  std::vector<std::string> state;                        // per parameter, in order
};

// Nullptr for a kind that isn't an optimiser.
const OptimizerSpec* optimizer_spec(const std::string& kind);

// One optimiser's values as graph nodes: settings in the spec's order, the
// step count (f32 scalar, steps taken so far) and per state, one node per
// parameter, in the parameters' order.
struct OptimizerNodes {
  std::vector<int> settings;
  int step = -1;
  std::vector<std::vector<int>> state;
};

// Appends one update of `params` by `grads` (same order, same types) and
// returns the new parameters; `opt` becomes the optimiser after the step.
std::vector<int> append_optimizer_step(Graph& g, const OptimizerSpec& spec, OptimizerNodes& opt,
                                       const std::vector<int>& params,
                                       const std::vector<int>& grads, diag::Span span);

}  // namespace ss::ir
