#include "api/compiled.hpp"

#include <variant>

#include "diag/reporter.hpp"
#include "syntax/lexer.hpp"
#include "syntax/parser.hpp"

namespace ss::api {

std::unique_ptr<Compiled> compile(syntax::SourceFile file, spdlog::logger& log) {
  auto c = std::make_unique<Compiled>();
  c->name = std::move(file.name);
  c->text = std::move(file.text);
  c->map = std::make_unique<syntax::SourceMap>(c->name, c->text);
  diag::Reporter reporter(*c->map);
  const auto tokens = syntax::lex(c->text, reporter);
  if (reporter.error_count() == 0) {
    c->program = syntax::parse(tokens, reporter);
    if (reporter.error_count() == 0) c->typed = check::check_program(c->program, reporter);
  }
  log.debug("checked {} ({} bytes): {} error(s)", c->name, c->text.size(), reporter.error_count());
  c->diagnostics = reporter.take();
  return c;
}

namespace {

std::unique_ptr<Compiled> compile_decoded(syntax::SourceOrError source, spdlog::logger& log) {
  if (auto* d = std::get_if<Diagnostic>(&source)) {
    auto c = std::make_unique<Compiled>();
    c->diagnostics.push_back(std::move(*d));
    return c;
  }
  return compile(std::move(std::get<syntax::SourceFile>(source)), log);
}

}  // namespace

std::unique_ptr<Compiled> compile_file(const std::string& path, spdlog::logger& log) {
  return compile_decoded(syntax::read_source_file(path), log);
}

std::unique_ptr<Compiled> compile_text(std::string_view text, std::string_view name,
                                       spdlog::logger& log) {
  return compile_decoded(syntax::decode_source(text, std::string(name)), log);
}

}  // namespace ss::api
