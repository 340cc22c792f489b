#include "api/prepare.hpp"

#include <exception>

#include "diag/codes.hpp"
#include "lower/lower.hpp"
#include "runtime/controller.hpp"

namespace ss::api {

namespace {

// What lowering found in `function`: the program's coded mistake as it is,
// else E0001 naming the executor; labelled at `span`.
Diagnostic lowering_error(const Compiled& c, std::optional<diag::Code> code,
                          const std::string& what, const std::string& help,
                          const std::string& function, diag::Span span,
                          const std::string& executor) {
  Diagnostic d =
      code ? diag::error(*code, what, help)
           : runtime::internal_error(what + ": `" + function + "` can't run on " + executor);
  d.labels.push_back(c.map->label(span, "here", true));
  d.location = d.labels.back().start;
  return d;
}

}  // namespace

std::map<std::string, ir::Graph> prepare_device_functions(Compiled& c,
                                                          const std::string& executor) {
  std::map<std::string, ir::Graph> graphs;
  if (!c.ok() || !unsized_dims(c).empty()) return graphs;
  for (const auto& [name, fn] : c.typed.functions) {
    if (fn.controller || fn.item->is_extern) continue;
    try {
      graphs.emplace(name, lower::lower_function(c.typed, name));
    } catch (const lower::NotLowered& e) {
      c.diagnostics.push_back(lowering_error(c, e.code, e.what(), e.help, name, e.span, executor));
    } catch (const std::exception& bug) {
      c.diagnostics.push_back(runtime::internal_error(bug.what()));
    }
  }
  return graphs;
}

void check_controller_code(Compiled& c, const ir::HostProgram& code, const std::string& executor) {
  for (const auto& [name, fn] : code)
    for (const auto& in : fn.code) {
      if (in.op == ir::HostOp::unsupported)
        c.diagnostics.push_back(
            lowering_error(c, in.code, in.text, in.help, name, in.span, executor));
    }
}

void check_lowering(Compiled& c, const std::string& executor) {
  if (!c.ok()) return;
  try {
    check_controller_code(c, lower::lower_controller(c.typed), executor);
  } catch (const std::exception& bug) {
    c.diagnostics.push_back(runtime::internal_error(bug.what()));
  }
  prepare_device_functions(c, executor);
}

}  // namespace ss::api
