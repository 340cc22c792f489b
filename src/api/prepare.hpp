// Preparing a checked program: the pipeline (lower/pipeline.hpp) run once,
// so what lowering finds is an error before anything runs (at load, and for
// `check`).
#pragma once

#include <string>

#include "api/compiled.hpp"
#include "ir/planner.hpp"
#include "ir/program.hpp"

namespace ss::api {

struct PrepareOptions {
  std::string executor = "the reference runtime";  // for messages: "the fast executor"
  bool distribute = false;                         // for the workers of several devices
  const ir::Planner* planner = nullptr;            // the executor that plans every graph, at load
};

// The lowered program. What lowering finds goes into c's diagnostics: the
// program's coded mistake (a static `7 // 0`, E1509; a gradient not
// supported yet, E1205) as it is, anything it can't lower without a code as
// E0001 naming the executor. Nothing for a program with errors; no device
// functions while dims are unsized (E0404 comes at the call).
ir::Program prepare_program(Compiled& c, const PrepareOptions& options);

// For a program only checked: prepared, then thrown away.
void check_lowering(Compiled& c, const std::string& executor);

}  // namespace ss::api
