// A program parsed and checked, kept with the text and tree its types point
// into, for tests that lower and run it.
#pragma once

#include <memory>
#include <string>

#include "check/checker.hpp"
#include "diag/source_map.hpp"
#include "syntax/ast.hpp"

namespace ss::test {

struct CheckedProgram {
  std::string text;
  std::unique_ptr<diag::SourceMap> map;
  syntax::Program program;
  check::TypedProgram typed;
};

// Reads, parses and checks a file under the source folder; a test fails
// when it has errors.
std::unique_ptr<CheckedProgram> check_source_file(const std::string& relative_path);
// The same for a program's text.
std::unique_ptr<CheckedProgram> check_source_text(const std::string& text);

}  // namespace ss::test
