// Collects the diagnostics of one source file: each made with a registered
// code, a primary span and its label, then secondary labels, notes and help.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "diag/codes.hpp"
#include "diag/source_map.hpp"

namespace ss::diag {

// Past this many errors in one file, the rest are dropped and a note says so.
inline constexpr std::size_t kMaxErrorsPerFile = 100;

class Reporter {
 public:
  explicit Reporter(const diag::SourceMap& map) : map_(map) {}

  // An error at `span`, labelled `label`. The reference stays valid until
  // the next call of error().
  Diagnostic& error(Code code, diag::Span span, std::string message, std::string label = {});
  void secondary(Diagnostic& d, diag::Span span, std::string label);

  std::size_t error_count() const { return errors_; }
  const diag::SourceMap& map() const { return map_; }
  std::vector<Diagnostic> take();

 private:
  const diag::SourceMap& map_;
  std::vector<Diagnostic> diagnostics_;
  Diagnostic overflow_;  // what error() hands out past the limit
  std::size_t errors_ = 0;
};

}  // namespace ss::diag
