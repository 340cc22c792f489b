// An f-string's `{x:spec}`: Python's [width][.precision][type], type one of
// f, e, g, d or %. Read once, by the parser (which refuses a spec it doesn't
// know, E0209) and by the runtime that formats the number.
#pragma once

#include <optional>
#include <string_view>

namespace ss::support {

struct FormatSpec {
  int width = 0;
  int precision = -1;  // -1: the type's default
  char type = 'g';     // 'g' where the spec names none
  bool typed = false;  // whether it names one (an int without one shows as `d`)
};

// The largest width or precision a spec may ask for.
inline constexpr int kMaxFormatWidth = 100;

// Null for a spec that isn't of that form (or asks past kMaxFormatWidth).
std::optional<FormatSpec> parse_format_spec(std::string_view spec);

}  // namespace ss::support
