// `shapescript build --standalone`: a program's device functions as one
// self-contained C++17 source. The tiny runtime (tiny_runtime/, its parts
// in order) comes first, then one function per device function, taking its inputs by name
// and returning its outputs in order. The source depends on nothing but
// the C++ standard library, and gives the library's results within
// float32 rounding.
#pragma once

#include <optional>
#include <string>

#include "diag/source_map.hpp"
#include "ir/graph.hpp"
#include "ir/program.hpp"

namespace ss::standalone {

// A node the tiny runtime has no operation for: its function, its
// operation and where it is.
struct Unsupported {
  std::string function, op;
  diag::Span span;
};

// The source, or the first node it can't take.
struct Emitted {
  std::string source;
  std::optional<Unsupported> unsupported;
};

Emitted emit_cpp(const ir::Program& program, const std::string& from);

}  // namespace ss::standalone
