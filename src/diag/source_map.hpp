// Byte offsets in a source file to lines and columns, for diagnostics.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shapescript/diagnostic.hpp"

namespace ss::diag {

// A half-open range of bytes in one source file.
struct Span {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  static Span cover(Span a, Span b) {
    return {a.begin < b.begin ? a.begin : b.begin, a.end > b.end ? a.end : b.end};
  }
};

// A label shows at most this many characters of its line: a longer line
// is cut to a window around the span, each cut end marked.
inline constexpr std::uint32_t kLineWindow = 160;
inline constexpr std::string_view kLineCutMarker = "...";

class SourceMap {
 public:
  SourceMap(std::string name, std::string_view text);

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }

  // 1-based line and column (in characters) of a byte offset.
  SourceLocation location(std::uint32_t offset) const;
  std::string_view line_text(std::uint32_t line) const;
  // A label for a span; a span over several lines is cut at its first line's
  // end, and a line longer than kLineWindow to a window around the span.
  Label label(Span span, std::string text, bool primary) const;
  std::string_view slice(Span span) const {
    return text_.substr(span.begin, span.end - span.begin);
  }

 private:
  std::string name_;
  std::string_view text_;
  std::vector<std::uint32_t> line_starts_;
};

}  // namespace ss::diag
