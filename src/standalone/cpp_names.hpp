// The C++ name a standalone build gives each program function: the name
// itself where that is safe, else an escaped one, so every program name (a
// C++ keyword, a reserved identifier, a macro of the standard headers, a
// name the generated file uses itself) comes out valid and collision-free.
#pragma once

#include <string>

namespace ss::standalone {

// `logits` -> `logits`; `double` -> `ss_double`; `a__b` -> `ss_a_0_0b`.
// Injective, and stable across builds; no result ends in `_updated` (the
// suffix of each function's companion list) except through that suffix.
std::string cpp_name(const std::string& program_name);

// True for a C++ keyword (C++20, alternative tokens, contextual words).
bool is_cpp_keyword(const std::string& word);

}  // namespace ss::standalone
