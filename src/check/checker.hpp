// The static checker: names, types, shapes, placement and the several-device
// rules, run on a parsed program. Every mistake is a coded diagnostic.
#pragma once

#include "diag/reporter.hpp"
#include "syntax/ast.hpp"

namespace ss::check {

// What the checker learnt that later stages need.
struct CheckSummary {
  int device_count = 1;  // from the `devices` line; 1 when there is none
  std::string device_kind = "cpu";
};

CheckSummary check_program(const syntax::Program& program, diag::Reporter& reporter);

}  // namespace ss::check
