// The generic axes a graph averages over: a mean (or a variance, a
// standard deviation, cross_entropy's mean over the other positions, an
// einops mean) divides by their size, so a call that gives one of them
// size 0 (an empty batch) would return NaN and train on it. A call checks
// them first (E1613).
#pragma once

#include <set>
#include <string>

#include "ir/graph.hpp"

namespace ss::ir {

// The names of the generic axes (`b`, `n`) that some node of `graph`, or of
// a loop or fused body in it, averages over.
std::set<std::string> averaged_axes(const Graph& graph);

}  // namespace ss::ir
