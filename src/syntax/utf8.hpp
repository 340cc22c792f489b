// Strict UTF-8 validation (RFC 3629): no overlong forms, no surrogates,
// nothing past U+10FFFF.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace ss::syntax {

struct Utf8Error {
  enum class Kind { bad_lead_byte, cut_short, invalid_sequence };
  Kind kind;
  std::size_t offset;  // of the first byte of the bad character
};

std::optional<Utf8Error> find_invalid_utf8(std::string_view text);

// 1-based line and column (in characters) of a byte offset in valid UTF-8
// text up to that offset.
struct LineColumn {
  std::size_t line = 1;
  std::size_t column = 1;
};
LineColumn line_column_at(std::string_view text, std::size_t offset);

}  // namespace ss::syntax
