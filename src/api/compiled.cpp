#include "api/compiled.hpp"

#include <algorithm>

#include <variant>

#include "diag/codes.hpp"
#include "diag/reporter.hpp"
#include "support/nearest.hpp"
#include "syntax/lexer.hpp"
#include "syntax/parser.hpp"

namespace ss::api {

std::unique_ptr<Compiled> compile(syntax::SourceFile file, spdlog::logger& log) {
  auto c = std::make_unique<Compiled>();
  c->name = std::move(file.name);
  c->text = std::move(file.text);
  c->map = std::make_unique<diag::SourceMap>(c->name, c->text);
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

void apply_dims(Compiled& c, const std::map<std::string, std::int64_t>& dims) {
  if (!c.ok()) return;
  for (const auto& [name, size] : dims) {
    const auto it = c.typed.dims.find(name);
    if (it == c.typed.dims.end()) {
      c.diagnostics.push_back(
          diag::error(diag::Code::E0405, "`" + c.name + "` declares no dim `" + name + "`",
                      "size the program's own dims, those declared `dim NAME`"));
    } else if (size <= 0) {
      c.diagnostics.push_back(diag::error(diag::Code::E0402,
                                          "dim `" + name + "` given size " + std::to_string(size),
                                          "a dim's size is 1 or more"));
    } else if (it->second && *it->second != size) {
      c.diagnostics.push_back(diag::error(
          diag::Code::E0406,
          "dim `" + name + "` is " + std::to_string(*it->second) + " in the program, given " +
              std::to_string(size),
          "only a dim declared without a size (`dim " + name + "`) takes one from the host"));
    } else {
      it->second = size;
    }
  }
}

std::string unknown_function_help(const check::TypedProgram& program, const std::string& name,
                                  bool device_only) {
  std::vector<std::string> names;
  for (const auto& [fn, info] : program.functions)
    if (!info.item->is_extern && !(device_only && info.controller)) names.push_back(fn);
  if (names.empty()) return "the program has no function to call";
  return support::nearest_names(name, names,
                                device_only ? "its device functions are" : "its functions are");
}

void check_sinks(Compiled& c, const std::vector<std::string>& bound) {
  if (!c.ok()) return;
  for (const auto& [name, span] : c.typed.sinks) {
    if (std::find(bound.begin(), bound.end(), name) != bound.end()) continue;
    Diagnostic d =
        diag::error(diag::Code::E1705, "the sink `" + name + "` has no destination",
                    "this host keeps every record: bind it (`--sink " + name + "=" + name +
                        ".csv`, or .jsonl, on the command line; LoadOptions::sinks from a host)");
    d.labels.push_back(c.map->label(span, "declared here", true));
    d.location = d.labels.back().start;
    c.diagnostics.push_back(std::move(d));
  }
}

std::vector<Diagnostic> unsized_dims(const Compiled& c) {
  std::vector<Diagnostic> out;
  for (const auto& item : c.program.dims) {
    const auto it = c.typed.dims.find(item.name);
    if (it == c.typed.dims.end() || it->second) continue;
    Diagnostic d = diag::error(diag::Code::E0404, "dim `" + item.name + "` has no size",
                               "give it one: `--dim " + item.name +
                                   "=32000` on the command line, or "
                                   "LoadOptions::dims from a host");
    d.labels.push_back(c.map->label(item.span, "declared without a size", true));
    d.location = d.labels.back().start;
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ss::api
