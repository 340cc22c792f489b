// A program file run the way a host runs one (Engine::run_file of `main`),
// with what it printed and its diagnostics: what the host-function and
// sandbox tests check.
#pragma once

#include <string>
#include <vector>

#include "shapescript/shapescript.hpp"

namespace ss::test {

struct ProgramRun {
  std::string printed;
  std::vector<Diagnostic> diagnostics;
  // The first diagnostic's code, or "".
  std::string code() const { return diagnostics.empty() ? "" : diagnostics[0].code; }
};

inline ProgramRun run_main(const std::string& path, const LoadOptions& options) {
  ProgramRun r;
  r.diagnostics = Engine().run_file(
      path, "main", [&](std::string_view s) { r.printed += s; }, {}, options);
  return r;
}

}  // namespace ss::test
