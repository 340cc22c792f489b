#include "diag/source_map.hpp"

#include <algorithm>

namespace ss::diag {
namespace {

std::uint32_t characters(std::string_view text) {
  std::uint32_t n = 0;
  for (const char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

}  // namespace

SourceMap::SourceMap(std::string name, std::string_view text)
    : name_(std::move(name)), text_(text) {
  line_starts_.push_back(0);
  for (std::uint32_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts_.push_back(i + 1);
}

SourceLocation SourceMap::location(std::uint32_t offset) const {
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(text_.size()));
  const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const auto line = static_cast<std::uint32_t>(it - line_starts_.begin());
  const std::uint32_t start = line_starts_[line - 1];
  return {name_, line, characters(text_.substr(start, offset - start)) + 1};
}

std::string_view SourceMap::line_text(std::uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  const std::uint32_t start = line_starts_[line - 1];
  std::uint32_t end =
      line < line_starts_.size() ? line_starts_[line] : static_cast<std::uint32_t>(text_.size());
  while (end > start && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return text_.substr(start, end - start);
}

Label SourceMap::label(Span span, std::string text, bool primary) const {
  Label l;
  l.start = location(span.begin);
  l.text = std::move(text);
  l.primary = primary;
  const std::string_view line = line_text(l.start.line);
  const std::uint32_t line_start = static_cast<std::uint32_t>(line.data() - text_.data());
  const std::uint32_t line_end = line_start + static_cast<std::uint32_t>(line.size());
  const std::uint32_t end = std::min(std::max(span.end, span.begin), line_end);
  l.length = span.begin < end ? characters(text_.substr(span.begin, end - span.begin)) : 1;
  if (l.length == 0) l.length = 1;
  const std::uint32_t width = characters(line);
  if (width <= kLineWindow) {
    l.line_text = std::string(line);
    return l;
  }
  // A long line (minified, generated, garbage): a window of kLineWindow
  // characters, a third of it before the span, the underline cut to fit.
  const std::uint32_t column = l.start.column - 1;  // in characters
  const std::uint32_t first = column > kLineWindow / 3 ? column - kLineWindow / 3 : 0;
  const std::uint32_t last = std::min(width, first + kLineWindow);
  l.length = std::max<std::uint32_t>(1, std::min(l.length, last - std::min(last, column)));
  // Character positions to bytes, walking the line once.
  std::size_t from = line.size(), to = line.size();
  for (std::uint32_t i = 0, n = 0; i <= line.size(); ++i) {
    if (i < line.size() && (static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (n == first) from = i;
    if (n == last) {
      to = i;
      break;
    }
    ++n;
  }
  l.cut_before = first;
  l.line_text = (first > 0 ? std::string(kLineCutMarker) : std::string()) +
                std::string(line.substr(from, to - from)) +
                (last < width ? std::string(kLineCutMarker) : std::string());
  return l;
}

}  // namespace ss::diag
