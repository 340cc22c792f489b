// Reverse-mode differentiation on the tensor IR: the gradient of a float
// scalar node is appended to the same graph as ordinary nodes, so every
// executor runs it. One rule per operation (autodiff.cpp); integer and bool
// values (comparisons, argmax, argsort, indices) carry no gradient.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/graph.hpp"

namespace ss::ir {

// An operation whose gradient isn't defined here (yet), at its span.
struct NotDifferentiable : std::runtime_error {
  NotDifferentiable(const std::string& what, diag::Span at) : std::runtime_error(what), span(at) {}
  diag::Span span;
};

using DimSizes = std::map<std::string, std::optional<std::int64_t>>;

// Appends to `graph` the nodes computing d(output)/d(wrt[i]) for each i,
// and returns them in order; -1 where no differentiable path leads from
// wrt[i] to the output. `output` must be a float scalar. Sizes of dims
// serve the rules that need a static size (concat). Throws
// NotDifferentiable.
std::vector<int> append_gradients(Graph& graph, int output, const std::vector<int>& wrt,
                                  const DimSizes& dims);

// The vector-Jacobian product: with `seeds` (an output node, and the node
// holding its adjoint, both in `graph`), the nodes computing each wrt's
// gradient, -1 where none reaches it. What a loop's gradient builds its
// backward body with.
std::vector<int> append_vjp(Graph& graph, const std::vector<std::pair<int, int>>& seeds,
                            const std::vector<int>& wrt, const DimSizes& dims);

}  // namespace ss::ir
