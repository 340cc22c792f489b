// Fusion of elementwise work: regions of float32 unary, binary and `where`
// nodes (with the comparisons and logic feeding a `where`) that one kernel
// computes in a single pass, each element's whole chain in registers. A
// region has a root (its float value leaves the region) and members whose
// values nobody else reads (one use, not an output, the root's shape); what
// it reads from outside are its inputs, broadcast into the root's shape.
// The runtime compiles each region with the LLVM JIT (runtime/fast/fast_executor).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.hpp"

namespace ss::ir {

struct FusedStep {
  enum class Kind { load, load_bool, constant, unary, binary, where };
  Kind kind = Kind::load;
  int sub = 0;                 // Unary or Binary, for those
  int a = -1, b = -1, c = -1;  // earlier steps; for loads, the input's position
  float value = 0;             // a constant's
};

struct FusedKernel {
  int root = -1;
  // A reduction over the root's trailing axes that is the root's only
  // reader, or -1. Then the kernel and the reduction are one loop nest:
  // the root's value is made a tile of rows at a time and reduced at once,
  // never stored whole; the root counts as a member.
  int reduce = -1;
  // The position in `inputs` of a matmul (its second operand a matrix)
  // that only this kernel reads, at the root's shape, or -1. Then the
  // kernel is that product's epilogue: the product is made a block of rows
  // at a time and the kernel runs on each block, never storing it whole.
  int epilogue = -1;
  std::vector<int> members;      // nodes computed inside, besides the root
  std::vector<int> inputs;       // nodes read, in load order
  std::vector<FusedStep> steps;  // the last makes the root's value
};

// Per input of a kernel: 1 when it is the same along the root's inner
// (last) axis (it lacks that axis, or its type has 1 there), else 0. A
// kernel's code reads such an input with stride 0 along the inner axis.
std::vector<std::uint8_t> inner_broadcast(const Graph& g, const FusedKernel& kernel);

// How many readers each node has, a graph output counting as two (so an
// output is never a value only one node reads).
std::vector<int> use_counts(const Graph& g);

// Whether node `product` is a matmul by a matrix whose one reader is
// `reader`, at its shape: a product the reader's work can finish in the
// GEMM's epilogue (FusedKernel::epilogue; the CUDA executor's cuBLASLt).
bool epilogue_product(const Graph& g, const std::vector<int>& uses, std::size_t product,
                      const Node& reader);

// A bias, maybe then a ReLU, over a product (`@` by a matrix) that nothing
// else reads: a fused region of just that (FusedKernel::epilogue), or a
// lone `add` of a vector. The GEMM computes it as it stores its results
// (the CPU's kernels, cuBLASLt's epilogue on CUDA). Node ids; product -1
// where there is none.
struct GemmEpilogue {
  int product = -1, bias = -1;
  bool relu = false;
};
GemmEpilogue gemm_epilogue(const Graph& g, const FusedKernel& kernel);
GemmEpilogue gemm_epilogue(const Graph& g, std::size_t add, const std::vector<int>& uses);

// The regions worth a kernel (two or more operations, or one feeding a
// fused reduction), in no particular order.
std::vector<FusedKernel> plan_fusion(const Graph& g);

}  // namespace ss::ir

namespace ss::ir {

// `kernels` as `--dump-ir=fuse` lists them, under a `graph NAME: N fused
// kernels` line: each kernel's root, members, inputs, and the reduction or
// product it runs with.
std::string print_fusion(const Graph& g, const std::vector<FusedKernel>& kernels);
// The kernels' lines alone.
std::string print_kernels(const std::vector<FusedKernel>& kernels);

}  // namespace ss::ir
