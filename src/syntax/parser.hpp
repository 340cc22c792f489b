// Tokens to the syntax tree. Errors are reported and the parser recovers at
// the next statement or item, so one run reports several mistakes.
#pragma once

#include "diag/reporter.hpp"
#include "syntax/ast.hpp"
#include "syntax/token.hpp"

namespace ss::syntax {

// Deeper nesting than this (brackets, blocks, operators) is E0205: a bound
// that keeps any input from exhausting the stack.
inline constexpr int kMaxNesting = 200;

Program parse(const std::vector<Token>& tokens, diag::Reporter& reporter);

}  // namespace ss::syntax
