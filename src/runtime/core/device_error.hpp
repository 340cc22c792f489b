// A failure on a device while a program runs (out of device memory, a
// kernel that wouldn't compile or launch): the diagnostic's code, its
// message naming what failed, and its help. runtime/controller/controller.hpp's
// program_failure turns it into that diagnostic at the call.
#pragma once

#include <stdexcept>
#include <string>

#include "diag/codes.hpp"

namespace ss::runtime {

struct DeviceError : std::runtime_error {
  DeviceError(diag::Code c, const std::string& message, std::string help_text)
      : std::runtime_error(message), code(c), help(std::move(help_text)) {}
  diag::Code code;
  std::string help;
};

}  // namespace ss::runtime
