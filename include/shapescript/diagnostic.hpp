// Diagnostics: what the library says when a program, a file or a device is
// wrong. Every user-facing failure carries a stable code ("E0101"); the
// catalog, docs/errors.md, explains each one (`shapescript --explain CODE`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shapescript/export.hpp"

namespace ss {

enum class Severity { error, warning, note };

// Where a diagnostic points. line and column are 1-based; 0 means "not known"
// (a diagnostic about a whole file has a file and no line).
struct SourceLocation {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

// A span of source underlined in a rendered diagnostic: `^^^` for the primary
// label, `---` for secondary ones, with the label's text beside it.
struct Label {
  SourceLocation start;      // where the span begins
  std::uint32_t length = 1;  // in characters, on that line (at least 1)
  std::string text;          // may be empty
  bool primary = true;
  // The source line, for the snippet: the whole line, or of a long one a
  // window around the span, "..." marking each end cut off.
  std::string line_text;
  // Characters of the line cut off before the window (0: none), so the
  // underline finds its column in line_text.
  std::uint32_t cut_before = 0;
};

struct RenderOptions {
  bool color = false;  // ANSI colours; the CLI turns them on for a terminal only
};

struct SS_API Diagnostic {
  std::string code;  // "E" + chapter (2 digits) + number (2 digits)
  Severity severity = Severity::error;
  std::string message;             // lowercase, no trailing period
  SourceLocation location;         // the primary label's start, or the file alone
  std::vector<Label> labels;       // primary first; empty when there is no span
  std::vector<std::string> notes;  // further facts (a loader's own error, say)
  std::string help;                // the way out; empty when there is none

  // rustc-style text, ending in a newline:
  //   error[E0603]: `@` contracts D with H
  //    --> mlp.ss:12:9
  //      |
  //   12 |     h = x @ m.w2
  //      |         ^^^^^^^^ left ends in D, right starts with H
  //      = help: did you mean m.w1? It is [D H].
  std::string render(const RenderOptions& options = {}) const;
};

// One JSON object: {"code", "severity", "file", "line", "column", "message",
// "labels": [{"line", "column", "length", "text", "primary", "line_text"}],
// "notes", "help"}; line_text as rendered (a long line's window).
SS_API std::string to_json(const Diagnostic& diagnostic);

// The catalog's entry for a code ("E0603"), as markdown: its title,
// explanation, example, fix and pointer into the language reference. Empty
// when no such code exists. The text is docs/errors.md's, built in.
SS_API std::string explain(std::string_view code);

// True when any diagnostic is an error (warnings and notes don't fail a check).
SS_API bool has_errors(const std::vector<Diagnostic>& diagnostics);

}  // namespace ss
