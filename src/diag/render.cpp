// rustc-style rendering of a Diagnostic. Source snippets with carets come with
// the front end's spans; for now a location is printed as `--> file:line:col`.
#include <algorithm>
#include <string>
#include <string_view>

#include "diag/source_map.hpp"
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
  const std::string_view mark_color = options.color ? severity_color(severity) : "";

  std::string out;
  out += mark_color;
  out += severity_word(severity);
  if (!code.empty()) out.append("[").append(code).append("]");
  out.append(reset).append(bold).append(": ").append(message).append(reset).append("\n");

  // The gutter is as wide as the largest line number shown.
  std::uint32_t widest_line = location.line;
  for (const auto& label : labels) widest_line = std::max(widest_line, label.start.line);
  const std::size_t width = labels.empty() ? 1 : std::to_string(widest_line).size();
  const std::string pad(width, ' ');

  if (!location.file.empty()) {
    out.append(pad).append(blue).append("-->").append(reset).append(" ").append(location.file);
    if (location.line > 0) {
      out.append(":").append(std::to_string(location.line));
      if (location.column > 0) out.append(":").append(std::to_string(location.column));
    }
    out += "\n";
  }

  if (!labels.empty()) {
    std::vector<const Label*> sorted;
    for (const auto& label : labels) sorted.push_back(&label);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const Label* a, const Label* b) { return a->start.line < b->start.line; });
    const auto gutter = [&](std::string_view number) {
      std::string g(number);
      g.resize(width, ' ');
      out.append(blue).append(g).append(" |").append(reset);
    };
    gutter("");
    out += "\n";
    std::uint32_t shown_line = 0;
    for (const Label* label : sorted) {
      if (label->start.line != shown_line) {
        shown_line = label->start.line;
        gutter(std::to_string(shown_line));
        if (!label->line_text.empty()) out.append(" ").append(label->line_text);
        out += "\n";
      }
      gutter("");
      // The column within line_text: past what a long line's window cut
      // off, after its "..." marker.
      std::uint32_t at = label->start.column > 0 ? label->start.column - 1 : 0;
      if (label->cut_before > 0)
        at = at - std::min(at, label->cut_before) + diag::kLineCutMarker.size();
      out.append(" ").append(at, ' ');
      out.append(label->primary ? mark_color : blue);
      out.append(std::max<std::uint32_t>(label->length, 1), label->primary ? '^' : '-');
      if (!label->text.empty()) out.append(" ").append(label->text);
      out.append(reset).append("\n");
    }
  }

  // `= note:` and `= help:` lines, rustc's footer.
  const auto footer = [&](std::string_view label, std::string_view text) {
    out.append(pad).append(" ").append(blue).append("=").append(reset).append(" ").append(bold);
    out.append(label).append(reset).append(": ").append(text).append("\n");
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
