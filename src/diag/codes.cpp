#include "diag/codes.hpp"

#include "diag/shorten.hpp"

#include <cstddef>

namespace ss::diag {
namespace {

struct Entry {
  std::string_view name;
  std::string_view title;
};

constexpr Entry kEntries[] = {
#define SS_DIAG(code, title) {#code, title},
#include "diag/codes.def"
#undef SS_DIAG
};
static_assert(std::size(kEntries) == kAllCodes.size(), "codes.def expands unevenly");

// Codes are "E" + 4 digits; the registry lists them in increasing order.
constexpr bool well_formed() {
  for (std::size_t i = 0; i < std::size(kEntries); ++i) {
    const auto name = kEntries[i].name;
    if (name.size() != 5 || name[0] != 'E') return false;
    for (std::size_t k = 1; k < 5; ++k)
      if (name[k] < '0' || name[k] > '9') return false;
    if (i > 0 && !(kEntries[i - 1].name < name)) return false;
  }
  return true;
}
static_assert(well_formed(), "codes.def: codes must be E + 4 digits, in increasing order");

}  // namespace

std::string_view code_name(Code code) {
  return kEntries[static_cast<std::size_t>(code)].name;
}

std::string_view code_title(Code code) {
  return kEntries[static_cast<std::size_t>(code)].title;
}

std::optional<Code> find_code(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kEntries); ++i)
    if (kEntries[i].name == name) return static_cast<Code>(i);
  return std::nullopt;
}

Diagnostic error(Code code, std::string message, std::string help) {
  Diagnostic d;
  d.code = std::string(code_name(code));
  d.severity = Severity::error;
  d.message = shorten(std::move(message));
  d.help = shorten(std::move(help));
  return d;
}

}  // namespace ss::diag
