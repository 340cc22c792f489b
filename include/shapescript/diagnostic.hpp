// Diagnostics: what the library says when a program, a file or a device is
// wrong. Every user-facing failure carries a stable code ("E0101"); the
// catalog, docs/errors.md, explains each one (`shapescript --explain CODE`).
#pragma once

#include <cstdint>
#include <string>
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

struct RenderOptions {
  bool color = false;  // ANSI colours; the CLI turns them on for a terminal only
};

struct SS_API Diagnostic {
  std::string code;  // "E" + chapter (2 digits) + number (2 digits)
  Severity severity = Severity::error;
  std::string message;  // lowercase, no trailing period
  SourceLocation location;
  std::vector<std::string> notes;  // further facts (a loader's own error, say)
  std::string help;                // the way out; empty when there is none

  // rustc-style text, ending in a newline:
  //   error[E0101]: can't read `model.ss`: no such file or directory
  //    --> model.ss
  //    = note: ...
  //    = help: ...
  std::string render(const RenderOptions& options = {}) const;
};

// True when any diagnostic is an error (warnings and notes don't fail a check).
SS_API bool has_errors(const std::vector<Diagnostic>& diagnostics);

}  // namespace ss
