// A problem with a file the program reads or writes (a dataset, a
// checkpoint, a sink's file), already coded: the controller turns it into
// a diagnostic pointing at the call that met it.
#pragma once

#include <stdexcept>
#include <string>

#include "diag/codes.hpp"

namespace ss::runtime {

struct DataError : std::runtime_error {
  DataError(diag::Code c, const std::string& message, std::string fix = {})
      : std::runtime_error(message), code(c), help(std::move(fix)) {}
  diag::Code code;
  std::string help;
};

}  // namespace ss::runtime
