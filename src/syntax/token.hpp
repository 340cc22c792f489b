// Tokens of shapescript source.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "diag/source_map.hpp"

namespace ss::syntax {

// Spans and the source map live in diag, below every stage that reports.
using diag::SourceMap;
using diag::Span;

enum class Tok {
  // Layout
  newline,
  indent,
  dedent,
  eof,
  // Atoms
  ident,
  integer,
  floating,
  string,
  fstring,
  // Keywords
  kw_fn,
  kw_return,
  kw_mut,
  kw_for,
  kw_in,
  kw_if,
  kw_else,
  kw_and,
  kw_or,
  kw_not,
  kw_true,
  kw_false,
  kw_break,
  // Punctuation
  lparen,
  rparen,
  lbracket,
  rbracket,
  comma,
  colon,
  dot,
  arrow,
  assign,
  plus,
  minus,
  star,
  slash,
  slash_slash,
  percent,
  star_star,
  at,
  pipe,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
};

struct Token {
  Tok kind = Tok::eof;
  Span span;
  std::string_view text;  // the source text of the token
  std::int64_t int_value = 0;
  double float_value = 0;
  std::string string_value;  // a string's or f-string's contents, escapes resolved
};

// "`)`", "an identifier", "the end of the line", for messages.
std::string describe(Tok kind);
std::string describe(const Token& token);

}  // namespace ss::syntax
