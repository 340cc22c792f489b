#include "fuzz/fuzz_entry.hpp"

#include <spdlog/logger.h>

#include <string_view>

#include "api/compiled.hpp"
#include "diag/codes.hpp"
#include "ir/host.hpp"
#include "lower/lower.hpp"
#include "syntax/utf8.hpp"

namespace ss::test {

std::string fuzz_one(const std::uint8_t* data, std::size_t size) {
  static spdlog::logger quiet("fuzz");  // no sinks: says nothing
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto compiled = api::compile_text(text, "fuzz.ss", quiet);
  for (const auto& d : compiled->diagnostics) {
    if (!diag::find_code(d.code)) return "unregistered code `" + d.code + "`";
    if (d.message.empty()) return d.code + " without a message";
    if (d.location.file != "fuzz.ss") return d.code + " lost the file name";
  }
  if (!compiled->diagnostics.empty()) return {};
  // Whatever the checker accepted is UTF-8, and lowers or says why not.
  if (syntax::find_invalid_utf8(text)) return "accepted text that isn't UTF-8";
  // Controller functions lower to a compact form that verifies (a tensor
  // expression the graph lowering can't handle becomes an instruction).
  try {
    for (const auto& [name, fn] : lower::lower_controller(compiled->typed))
      if (const auto bad = ir::verify(fn); !bad.empty())
        return "controller `" + name + "` lowered badly: " + bad;
  } catch (const std::exception& e) {
    return std::string("lowering the controller failed: ") + e.what();
  }
  for (const auto& [name, fn] : compiled->typed.functions) {
    if (fn.controller || fn.item->is_extern) continue;
    try {
      const auto graph = lower::lower_function(compiled->typed, name);
      if (const auto bad = ir::verify(graph); !bad.empty())
        return "`" + name + "` lowered to a bad graph: " + bad;
    } catch (const lower::NotLowered&) {
      // an operation not lowered yet: said, not a failure
    } catch (const std::exception& e) {
      return "lowering `" + name + "` failed: " + e.what();
    }
  }
  return {};
}

}  // namespace ss::test
