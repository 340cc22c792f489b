// When a graph's values die: after which node each value is read for the
// last time, so the runtime drops it there and its buffer goes back to the
// pool (runtime/core/buffer_pool.hpp) for the next value of its size. With the
// pool this is the memory plan: a step's values reuse the memory of those
// that died before them, and a steady-state step takes none from the system.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.hpp"

namespace ss::ir {

// release[i]: the values to drop once node i has run. `read_at[u]` is the
// node at which node u's inputs are read (u itself, unless an executor
// reads them elsewhere: a fused kernel reads its members' inputs at its
// root); empty means every node reads at itself. Outputs are never dropped;
// a value nothing reads is dropped right after it is made.
using ReleasePlan = std::vector<std::vector<int>>;
ReleasePlan plan_releases(const Graph& graph, const std::vector<int>& read_at = {});

}  // namespace ss::ir

namespace ss::ir {

// A release plan as `--dump-ir=plan` lists it: a line per node that drops
// values, "  after %7 drop %3 %5".
std::string print_releases(const ReleasePlan& plan);

}  // namespace ss::ir
