#include "diag/shorten.hpp"

#include "diag/source_map.hpp"

namespace ss::diag {
namespace {

// The byte offset of character `n` of `text` from `from` (UTF-8), or npos.
std::size_t advance(const std::string& text, std::size_t from, std::size_t n) {
  for (std::size_t i = from; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (n-- == 0) return i;
  }
  return std::string::npos;
}

}  // namespace

std::string shorten(std::string text) {
  if (text.size() <= kQuotedWindow) return text;
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('`', at);
    const std::size_t close = open == std::string::npos ? open : text.find('`', open + 1);
    if (close == std::string::npos) {
      out.append(text, at, std::string::npos);
      break;
    }
    out.append(text, at, open + 1 - at);
    const std::size_t cut = advance(text, open + 1, kQuotedWindow);
    if (cut != std::string::npos && cut < close)
      out.append(text, open + 1, cut - open - 1).append(kLineCutMarker);
    else
      out.append(text, open + 1, close - open - 1);
    out += '`';
    at = close + 1;
  }
  if (const std::size_t cut = advance(out, 0, kTextWindow); cut != std::string::npos) {
    out.resize(cut);
    out.append(kLineCutMarker);
  }
  return out;
}

void shorten(Diagnostic& d) {
  d.message = shorten(std::move(d.message));
  d.help = shorten(std::move(d.help));
  for (auto& note : d.notes) note = shorten(std::move(note));
  for (auto& label : d.labels) label.text = shorten(std::move(label.text));
}

}  // namespace ss::diag
