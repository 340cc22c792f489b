#include "diag/reporter.hpp"

#include "diag/shorten.hpp"

#include <algorithm>
#include <utility>

namespace ss::diag {

Diagnostic& Reporter::error(Code code, diag::Span span, std::string message, std::string label) {
  ++errors_;
  if (errors_ > kMaxErrorsPerFile) {
    overflow_ = Diagnostic{};
    return overflow_;
  }
  // The one before is complete now (its help and notes added): shortened
  // while it is the only long one held.
  if (!diagnostics_.empty()) shorten(diagnostics_.back());
  Diagnostic d = diag::error(code, std::move(message));  // shortens the message
  d.labels.push_back(map_.label(span, std::move(label), true));
  d.location = d.labels.back().start;
  diagnostics_.push_back(std::move(d));
  return diagnostics_.back();
}

void Reporter::secondary(Diagnostic& d, diag::Span span, std::string label) {
  if (&d == &overflow_) return;
  d.labels.push_back(map_.label(span, std::move(label), false));
}

std::vector<Diagnostic> Reporter::take() {
  if (!diagnostics_.empty()) shorten(diagnostics_.back());
  // In source order, whatever order the stages found them in.
  std::stable_sort(diagnostics_.begin(), diagnostics_.end(),
                   [](const Diagnostic& a, const Diagnostic& b) {
                     return std::pair(a.location.line, a.location.column) <
                            std::pair(b.location.line, b.location.column);
                   });
  if (errors_ > kMaxErrorsPerFile && !diagnostics_.empty())
    diagnostics_.back().notes.push_back(std::to_string(errors_ - kMaxErrorsPerFile) +
                                        " more errors in this file are not shown");
  return std::move(diagnostics_);
}

}  // namespace ss::diag
