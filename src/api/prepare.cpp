#include "api/prepare.hpp"

#include <exception>

#include "diag/codes.hpp"
#include "ir/lower.hpp"
#include "runtime/controller.hpp"

namespace ss::api {

std::map<std::string, ir::Graph> prepare_device_functions(Compiled& c,
                                                          const std::string& executor) {
  std::map<std::string, ir::Graph> graphs;
  if (!c.ok() || !unsized_dims(c).empty()) return graphs;
  for (const auto& [name, fn] : c.typed.functions) {
    if (fn.controller || fn.item->is_extern) continue;
    try {
      graphs.emplace(name, ir::lower_function(c.typed, name));
    } catch (const ir::NotLowered& e) {
      Diagnostic d = e.code ? diag::error(*e.code, e.what())
                            : runtime::internal_error(std::string(e.what()) + ": `" + name +
                                                      "` can't run on " + executor);
      d.labels.push_back(c.map->label(e.span, "here", true));
      d.location = c.map->location(e.span.begin);
      c.diagnostics.push_back(std::move(d));
    } catch (const std::exception& bug) {
      c.diagnostics.push_back(runtime::internal_error(bug.what()));
    }
  }
  return graphs;
}

void check_controller_code(Compiled& c, const ir::HostProgram& code, const std::string& executor) {
  for (const auto& [name, fn] : code)
    for (const auto& in : fn.code) {
      if (in.op != ir::HostOp::unsupported) continue;
      Diagnostic d =
          in.code ? diag::error(*in.code, in.text)
                  : runtime::internal_error(in.text + ": `" + name + "` can't run on " + executor);
      d.labels.push_back(c.map->label(in.span, "here", true));
      d.location = d.labels.back().start;
      c.diagnostics.push_back(std::move(d));
    }
}

void check_lowering(Compiled& c, const std::string& executor) {
  if (!c.ok()) return;
  try {
    check_controller_code(c, ir::lower_controller(c.typed), executor);
  } catch (const std::exception& bug) {
    c.diagnostics.push_back(runtime::internal_error(bug.what()));
  }
  prepare_device_functions(c, executor);
}

}  // namespace ss::api
