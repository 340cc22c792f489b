#include "support/checked_program.hpp"

#include <doctest/doctest.h>

#include "diag/reporter.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "syntax/lexer.hpp"
#include "syntax/parser.hpp"

namespace ss::test {

namespace {

std::unique_ptr<CheckedProgram> checked(std::string text, const std::string& name) {
  auto c = std::make_unique<CheckedProgram>();
  c->text = std::move(text);
  c->map = std::make_unique<diag::SourceMap>(name, c->text);
  diag::Reporter reporter(*c->map);
  c->program = syntax::parse(syntax::lex(c->text, reporter), reporter);
  c->typed = check::check_program(c->program, reporter);
  const auto diagnostics = reporter.take();
  CHECK_MESSAGE(diagnostics.empty(),
                (diagnostics.empty() ? std::string() : diagnostics[0].render()));
  return c;
}

}  // namespace

std::unique_ptr<CheckedProgram> check_source_file(const std::string& relative_path) {
  const std::string path = std::string(kSourceDir) + "/" + relative_path;
  return checked(read_file(path), path);
}

std::unique_ptr<CheckedProgram> check_source_text(const std::string& text) {
  return checked(text, "test.ss");
}

}  // namespace ss::test
