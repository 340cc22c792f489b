#include "support/format_spec.hpp"

#include <cctype>

namespace ss::support {

std::optional<FormatSpec> parse_format_spec(std::string_view spec) {
  FormatSpec out;
  std::size_t at = 0;
  const auto digits = [&](int* value) {
    for (; at < spec.size() && std::isdigit(static_cast<unsigned char>(spec[at])); ++at) {
      *value = *value * 10 + (spec[at] - '0');
      if (*value > kMaxFormatWidth) return false;
    }
    return true;
  };
  if (!digits(&out.width)) return std::nullopt;
  if (at < spec.size() && spec[at] == '.') {
    ++at;
    out.precision = 0;
    if (!digits(&out.precision)) return std::nullopt;
  }
  if (at < spec.size()) {
    out.type = spec[at++];
    out.typed = true;
  }
  if (at != spec.size() || std::string_view("fegd%").find(out.type) == std::string_view::npos)
    return std::nullopt;
  return out;
}

}  // namespace ss::support
