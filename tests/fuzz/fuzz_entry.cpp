#include "fuzz/fuzz_entry.hpp"

#include <string_view>

#include "diag/codes.hpp"
#include "shapescript/engine.hpp"
#include "syntax/utf8.hpp"

namespace ss::test {

std::string fuzz_one(const std::uint8_t* data, std::size_t size) {
  static const Engine engine;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto diagnostics = engine.check_source(text, "fuzz.ss");
  for (const auto& d : diagnostics) {
    if (!diag::find_code(d.code)) return "unregistered code `" + d.code + "`";
    if (d.message.empty()) return d.code + " without a message";
    if (d.location.file != "fuzz.ss") return d.code + " lost the file name";
  }
  // Whatever the checker accepted is UTF-8.
  if (diagnostics.empty() && syntax::find_invalid_utf8(text))
    return "accepted text that isn't UTF-8";
  return {};
}

}  // namespace ss::test
