// Lowering: a checked device function to its graph. Calls of the program's
// other device functions are inlined, `for` over a static range unrolled and
// `if` on static values decided, so a graph is pure dataflow.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "check/checker.hpp"
#include "diag/codes.hpp"
#include "ir/graph.hpp"
#include "ir/host.hpp"

namespace ss::lower {

// An operation the checker accepts that this lowering doesn't handle yet;
// or, with a code, the program's mistake only lowering finds (a gradient
// with no differentiable path, E1204).
struct NotLowered : std::runtime_error {
  NotLowered(const std::string& what, diag::Span at, std::optional<diag::Code> c = {},
             std::string fix = {})
      : std::runtime_error(what), span(at), code(c), help(std::move(fix)) {}
  diag::Span span;
  std::optional<diag::Code> code;
  std::string help;  // for a coded mistake: how to fix it, or empty
};

// `function` must be a device function of the program. Throws NotLowered.
ir::Graph lower_function(const check::TypedProgram& program, const std::string& function);

// One expression of a controller function as a graph: each of `variables`
// (the names it reads, with their types) is an input; its value (or a
// tuple's parts) the outputs. Throws NotLowered.
// `bound` names sub-expressions the controller computes itself (a dataset's
// `test |> whole`): each is read as the variable of that name instead.
ir::Graph lower_expression(const check::TypedProgram& program, const syntax::Expr& e,
                           const std::map<std::string, types::Type>& variables,
                           const std::map<const syntax::Expr*, std::string>& bound = {});

// Every controller function of a checked program. Tensor expressions the
// graph lowering can't handle yet become `unsupported` instructions, so
// the rest of the function still runs.
ir::HostProgram lower_controller(const check::TypedProgram& program);
ir::HostFunction lower_controller_function(const check::TypedProgram& program,
                                           const std::string& function);

}  // namespace ss::lower
