// The one driver from a checked program to the lowered one: lower (the
// gradients and optimiser steps appended as they are met), verify,
// distribute, fuse, plan. Module, the AOT build, the standalone emitter
// and `check --dump-ir=PASS` all start here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check/checker.hpp"
#include "diag/codes.hpp"
#include "diag/source_map.hpp"
#include "ir/planner.hpp"
#include "ir/program.hpp"

namespace ss::lower {

// The passes in order, by the names `--dump-ir=PASS` takes.
const std::vector<std::string_view>& pass_names();

// What lowering couldn't make of one function.
struct Failure {
  std::string function;
  std::optional<diag::Code> code;  // the program's mistake (E1509, E1204, E1205), if it is one
  std::string what, help;
  diag::Span span;
  bool internal = false;  // a bug of ours, not the program's: no span
};

struct PipelineOptions {
  bool device_functions = true;  // lower them (a host leaves them while dims are unsized)
  bool distribute = false;       // for several devices' workers: the device functions distributed
  std::string dump_after;        // a pass's name: the listing after it goes to `dump`
  const diag::SourceMap* map = nullptr;  // for the listing's lines
  // The executor that will run the program: its plans are the last pass.
  const ir::Planner* planner = nullptr;
};

struct Lowered {
  ir::Program program;
  std::vector<Failure> failures;  // in the order met
  std::string dump;
};

// Never throws for the program's sake: what a function can't be lowered to
// is a Failure, the rest of the program lowered still.
Lowered run_pipeline(const check::TypedProgram& typed, const PipelineOptions& options = {});

// The program without its code: dims, models with their initialisers,
// records, signatures, sinks, devices (the pipeline's first step).
ir::Program program_outline(const check::TypedProgram& typed);

}  // namespace ss::lower
