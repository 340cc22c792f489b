// Which of a graph's values the CUDA executor keeps in bf16 under
// --precision bf16 (autocast's activations): half the bytes to write and
// read between the contractions and the fused elementwise kernels, which
// are the steps that move most of a training step's bytes.
//
// A value is kept in bf16 when it is a float32 intermediate (not an
// output, so results, parameters and optimiser state stay float32), made
// by a GEMM (`@`, a two-operand einsum) or as a fused kernel's root, and
// every reader is one that reads bf16: a GEMM (a bf16 operand, the f32
// one narrowed per call), a fused kernel or a reduction (their loads
// widen). Any other reader (softmax, attention, a norm, the host) would
// need a widening first, so such a value stays float32.
#pragma once

#include <vector>

#include "ir/fusion.hpp"
#include "ir/graph.hpp"

namespace ss::cuda {

// Whether node i is a GEMM the executor may run on bf16 operands.
bool bf16_gemm(const ir::Node& n);
// Whether node i reads a value kept in bf16 as it lies: a GEMM, or a
// reduction (`reduce`: sum, mean, max, min, logsumexp, var, std).
bool bf16_reader(const ir::Node& n);

// Per node: 1 where its value may be kept in bf16. `kernels` are the fused
// regions the executor runs, `root_of` and `member` map nodes to them.
std::vector<char> bf16_storage(const ir::Graph& g, const std::vector<ir::FusedKernel>& kernels,
                               const std::vector<int>& root_of, const std::vector<char>& member);

}  // namespace ss::cuda
