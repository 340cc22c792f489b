// rustc-style rendering of a Diagnostic. Source snippets with carets come with
// the front end's spans; for now a location is printed as `--> file:line:col`.
#include <string>
#include <string_view>

#include "shapescript/diagnostic.hpp"

namespace ss {
namespace {

const char* severity_word(Severity severity) {
  switch (severity) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::note:
      return "note";
  }
  return "error";
}

const char* severity_color(Severity severity) {
  switch (severity) {
    case Severity::error:
      return "\x1b[1;31m";
    case Severity::warning:
      return "\x1b[1;33m";
    case Severity::note:
      return "\x1b[1;36m";
  }
  return "";
}

}  // namespace

std::string Diagnostic::render(const RenderOptions& options) const {
  const std::string_view bold = options.color ? "\x1b[1m" : "";
  const std::string_view blue = options.color ? "\x1b[1;34m" : "";
  const std::string_view reset = options.color ? "\x1b[0m" : "";

  std::string out;
  if (options.color) out += severity_color(severity);
  out += severity_word(severity);
  if (!code.empty()) out.append("[").append(code).append("]");
  out.append(reset).append(bold).append(": ").append(message).append(reset).append("\n");

  if (!location.file.empty()) {
    out.append(" ").append(blue).append("-->").append(reset).append(" ").append(location.file);
    if (location.line > 0) {
      out.append(":").append(std::to_string(location.line));
      if (location.column > 0) out.append(":").append(std::to_string(location.column));
    }
    out += "\n";
  }
  // `= note:` and `= help:` lines, rustc's footer.
  const auto footer = [&](std::string_view label, std::string_view text) {
    out.append("  ").append(blue).append("=").append(reset).append(" ").append(bold).append(label);
    out.append(reset).append(": ").append(text).append("\n");
  };
  for (const auto& note : notes) footer("note", note);
  if (!help.empty()) footer("help", help);
  return out;
}

bool has_errors(const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics)
    if (d.severity == Severity::error) return true;
  return false;
}

}  // namespace ss
