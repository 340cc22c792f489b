// The device functions of a program file as graphs (with their gradient
// graphs, for the gradient programs), and made-up inputs for a graph: what
// the executor, CUDA and GPU tests run every kernel over.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/checked_program.hpp"

namespace ss::test {

// A program whose function `f` fuses into two kernels covering most of
// what a kernel computes: broadcasting, a bool condition, exp, sqrt, abs,
// tanh, sigmoid, gelu, maximum and %. The CPU's and the CUDA kernels'
// tests both use it.
inline constexpr const char* kFusedKernelProgram =
    "dim N = 7\n\n"
    "fn f(x: [b N], y: [N], c: [b 1]) -> [b N]:\n"
    "    z = where(x > y, exp(x) * c - y, sqrt(abs(x)) / (y + 2.0))\n"
    "    return maximum(tanh(z), sigmoid(x)) + gelu(z) * (x % 1.5)\n";

struct LoweredGraph {
  std::string function;
  ir::Graph graph;
};

// Every device function of `program` that lowers; with `gradients`, each
// function whose first output is a float scalar gets its gradients with
// respect to every float input it depends on appended (the outputs become
// those gradients), and the others are left out.
std::vector<LoweredGraph> lowered_graphs(const CheckedProgram& program, bool gradients = false);

// The graph of `function` among `graphs`; null where there is none.
const ir::Graph* lowered_graph(const std::vector<LoweredGraph>& graphs,
                               const std::string& function);

// Inputs for a graph: generic axes of size `generic`, indices in range,
// bools every third, floats a scaled sine.
std::map<std::string, runtime::Tensor> made_up_inputs(const ir::Graph& g, const runtime::Dims& dims,
                                                      std::int64_t generic = 5, double scale = 1.1);

}  // namespace ss::test
