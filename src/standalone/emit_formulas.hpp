// The library's elementwise functions (types/unary.def, types/binary.def)
// as the C++ the tiny runtime calls, written above it in a standalone
// source: enum Unary, unary_result, unary_formula; enum Binary,
// binary_result, binary_formula (namespace ssa). Plain C++17 and <cmath>.
#pragma once

#include <string>

namespace ss::standalone {

std::string elementwise_formulas();

}  // namespace ss::standalone
