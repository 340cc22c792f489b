// The fast executor's contractions through the packed GEMM (runtime/gemm):
// matmul, and einsums as batched GEMMs (two operands, or autodiff's three
// with one factor of the output's names). False for what they don't take.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ir/graph.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime::fast {

bool matmul(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values, int threads);

// a @ b for a b of rank 2, a block of rows at a time: block(r0, r1, tile)
// gets rows [r0, r1) of the product in `tile` (its rows b's columns long),
// for an epilogue to read while they are in the cache. Each row's sums are
// the whole product's. False, having run nothing, where matmul() would be.
bool matmul_in_blocks(const Tensor& a, const Tensor& b, int threads,
                      const std::function<void(std::int64_t, std::int64_t, const float*)>& block);
bool einsum(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values, int threads);

}  // namespace ss::runtime::fast
