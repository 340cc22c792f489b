// The portable numerics' fingerprint of the test programs and the demos:
// every graph, forward and gradient, run on the fast executor with
// Numerics::portable, each graph's outputs hashed. Equal lists from two
// kernel paths (SHAPESCRIPT_ISA) or thread counts mean equal bits.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "support/agreement.hpp"

namespace ss::test {

// One line a graph: "FILE FUNCTION[ (gradients)] HASH" (or "... range
// error" where the made-up inputs take an index out of range on the
// reference too), in a fixed order; `threads` the executor's. A graph
// whose outputs hold a NaN is hashed again with its float inputs'
// magnitudes ("... (magnitudes) HASH"). *nodes, where given, gets the
// executor's node counts by path (runtime::executor_nodes: "reference OP"
// for a node left to the reference). `jit` false: without the JIT module
// (every node alone, elementwise ones through portable_steps).
std::vector<std::string> portable_hashes(int threads,
                                         std::map<std::string, std::int64_t>* nodes = nullptr,
                                         bool jit = true);

// The same graphs and inputs on the reference and the portable fast
// executor (two threads): how closely they agree; *graphs counts them.
Agreement portable_agreement(int* graphs);

// Writes the lines to `file`, one a line; false where it can't.
bool write_lines(const std::string& file, const std::vector<std::string>& lines);
std::vector<std::string> read_lines(const std::string& file);

}  // namespace ss::test
