// Preparing a checked program: its device functions lowered once to their
// graphs and its controller functions to their compact form, so what
// lowering finds is an error before anything runs (at load, and for
// `check`).
#pragma once

#include <map>
#include <string>

#include "api/compiled.hpp"
#include "ir/graph.hpp"
#include "ir/host.hpp"

namespace ss::api {

// Every device function's graph, by name. What lowering finds goes into
// c's diagnostics: the program's coded mistake (a static `7 // 0`, E1509;
// a gradient not supported yet, E1205) as it is, and anything it can't
// lower without a code as E0001 naming `executor` ("the fast executor").
// Nothing for a program with errors, or with dims still unsized (E0404
// comes at the call).
std::map<std::string, ir::Graph> prepare_device_functions(Compiled& c, const std::string& executor);

// Adds to c's diagnostics each instruction of `code` lowering couldn't
// make: the program's coded mistake as it is, else E0001 naming `executor`.
void check_controller_code(Compiled& c, const ir::HostProgram& code, const std::string& executor);

// Both, for a program only checked: lowered, then thrown away.
void check_lowering(Compiled& c, const std::string& executor);

}  // namespace ss::api
