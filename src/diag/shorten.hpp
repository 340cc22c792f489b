// Diagnostics stay small whatever the source holds: a 16 MB token quoted
// in a message, a help or a note is cut to its start, as a long line is to
// a window (diag/source_map.hpp), so a line of garbage can't make
// megabytes of diagnostics.
#pragma once

#include <cstddef>
#include <string>

#include "shapescript/diagnostic.hpp"

namespace ss::diag {

// A quoted (`...`) run longer than this many characters keeps its start.
inline constexpr std::size_t kQuotedWindow = 120;
// A whole text longer than this keeps its start.
inline constexpr std::size_t kTextWindow = 2000;

// `text` with long quoted runs, and a long whole, cut ("..." marks a cut).
std::string shorten(std::string text);
// Its message, help, notes and labels' texts shortened.
void shorten(Diagnostic& d);

}  // namespace ss::diag
