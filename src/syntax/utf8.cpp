#include "syntax/utf8.hpp"

#include <cstdint>

namespace ss::syntax {

std::optional<Utf8Error> find_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      // 0x80..0xBF continuation without a lead, 0xC0/0xC1 always overlong,
      // 0xF5.. beyond Unicode.
      return Utf8Error{Utf8Error::Kind::bad_lead_byte, i};
    }
    for (std::size_t k = 1; k < len; ++k) {
      if (i + k >= n || (s[i + k] & 0xC0) != 0x80) return Utf8Error{Utf8Error::Kind::cut_short, i};
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    const bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    const bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    if (overlong || surrogate || cp > 0x10FFFF)
      return Utf8Error{Utf8Error::Kind::invalid_sequence, i};
    i += len;
  }
  return std::nullopt;
}

LineColumn line_column_at(std::string_view text, std::size_t offset) {
  LineColumn at;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++at.line;
      at.column = 1;
    } else if ((c & 0xC0) != 0x80) {  // count characters, not continuation bytes
      ++at.column;
    }
  }
  return at;
}

}  // namespace ss::syntax
