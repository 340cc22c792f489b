// A program through the front end, kept with the text and tree its types
// point into: what check, run and a loaded Module share.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/logger.h>

#include "check/checker.hpp"
#include "diag/source_map.hpp"
#include "shapescript/diagnostic.hpp"
#include "syntax/ast.hpp"
#include "syntax/source_file.hpp"

namespace ss::api {

struct Compiled {
  std::string name, text;
  std::unique_ptr<diag::SourceMap> map;
  syntax::Program program;
  check::TypedProgram typed;
  std::vector<Diagnostic> diagnostics;
  bool ok() const { return !has_errors(diagnostics); }
};

// Lexes, parses and checks. Each stage runs only on what the one before
// accepted, so one mistake doesn't cascade into others.
std::unique_ptr<Compiled> compile(syntax::SourceFile file, spdlog::logger& log);
std::unique_ptr<Compiled> compile_file(const std::string& path, spdlog::logger& log);
std::unique_ptr<Compiled> compile_text(std::string_view text, std::string_view name,
                                       spdlog::logger& log);

// Gives the program's unsized dims the host's sizes (E0405, E0406 on
// conflicts, added to its diagnostics).
void apply_dims(Compiled& c, const std::map<std::string, std::int64_t>& dims);

// E1604's help for a function name the program lacks: the nearest of its
// functions (device functions alone where `device_only`), then them all.
std::string unknown_function_help(const check::TypedProgram& program, const std::string& name,
                                  bool device_only);

// E1705 for each sink the program declares that `bound` lacks (added to
// its diagnostics): for a host that asks for strict sinks.
void check_sinks(Compiled& c, const std::vector<std::string>& bound);

// E0404 for each dim still without a size, once the program is to run.
std::vector<Diagnostic> unsized_dims(const Compiled& c);

}  // namespace ss::api
