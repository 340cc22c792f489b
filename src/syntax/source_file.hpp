// Source text: reading a program from a file and checking that it is UTF-8,
// the first thing every later stage may rely on.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

#include "shapescript/diagnostic.hpp"

namespace ss::syntax {

// The largest source file read (E0103 past it): far beyond any real program
// (a 10,000-line model is under 1 MiB), small enough to never exhaust memory.
inline constexpr std::size_t kMaxSourceBytes = std::size_t{16} << 20;

struct SourceFile {
  std::string name;  // as given: shown in diagnostics
  std::string text;  // valid UTF-8, a leading byte-order mark removed
};

using SourceOrError = std::variant<SourceFile, Diagnostic>;

// Reads and decodes a file: E0101 when it can't be read (missing, a folder,
// no permission, an I/O error), E0103 when it is too large, E0102 when its
// text isn't UTF-8.
SourceOrError read_source_file(const std::string& path);

// Decodes text already in memory (from the host): E0102 or E0103.
SourceOrError decode_source(std::string_view bytes, std::string name);

}  // namespace ss::syntax
