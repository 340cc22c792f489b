// Source text to tokens: blocks by indentation (INDENT and DEDENT tokens,
// spaces only), lines joined inside brackets, comments dropped.
#pragma once

#include <vector>

#include "diag/reporter.hpp"
#include "syntax/token.hpp"

namespace ss::syntax {

// Always ends in newline, the dedents that close open blocks, and eof.
std::vector<Token> lex(std::string_view text, diag::Reporter& reporter);

// Lexes only text[begin, end) (an f-string's expression), spans staying
// offsets into the whole text.
std::vector<Token> lex_range(std::string_view text, std::size_t begin, std::size_t end,
                             diag::Reporter& reporter);

}  // namespace ss::syntax
