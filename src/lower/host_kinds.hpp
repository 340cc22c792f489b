// What controller lowering (lower_host.cpp) asks of a checked type: its
// kind as the compact form holds it, whether a graph takes it as inputs,
// and which variable a graph input's path belongs to.
#pragma once

#include <string>

#include "ir/host.hpp"
#include "types/types.hpp"

namespace ss::lower {

ir::HostKind kind_of(const types::Type& t);

// What a graph takes as inputs: tensors, numbers, and structures of
// tensors (models, optimisers, records and batches).
bool passes_to_graph(const types::Type& t);

// The variable a graph input or update belongs to: "m" of "m.w1".
std::string variable_of(const std::string& path);

}  // namespace ss::lower
