// The fast executor's contractions through the packed GEMM (runtime/gemm):
// matmul, and einsums as batched GEMMs (two operands, or autodiff's three
// with one factor of the output's names). False for what they don't take.
#pragma once

#include <vector>

#include "ir/graph.hpp"
#include "runtime/tensor.hpp"

namespace ss::runtime::fast {

bool matmul(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values, int threads);
bool einsum(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values, int threads);

}  // namespace ss::runtime::fast
