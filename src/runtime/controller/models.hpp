// Models and optimisers as the controller holds them: tensors by path
// ("w1", "enc.w"; an optimiser's "lr", "step", "exp_avg.w1").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/optimizers.hpp"
#include "ir/program.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime {

using Fields = std::map<std::string, Tensor>;

// Each parameter's path, dtype and shape, in declaration order, sub-models'
// depth first: the order a graph's inputs and outputs list a model's tensors.
struct ParamInfo {
  std::string path;
  DType dtype;
  Shape shape;
};
std::vector<ParamInfo> model_layout(const ir::Program& program, const std::string& model);

// `Model(seed=s)`: every parameter drawn from its initialiser. The k-th
// parameter in declaration order (sub-models depth first) reads stream k of
// the counter-based generator keyed by the seed, so a seed gives the same
// model on every machine. glorot is uniform in +-sqrt(6 / (fan_in +
// fan_out)), fan_out the last axis and fan_in the product of the others.
Fields initialise_model(const ir::Program& program, const std::string& model, std::uint64_t seed);

// `Kind(m, lr=...)`: its settings (the given ones, else PyTorch's
// defaults), a step count of 0 and zero state for each of m's tensors.
Fields make_optimizer(const ir::OptimizerSpec& spec, const Fields& model,
                      const std::map<std::string, double>& given);

}  // namespace ss::runtime
