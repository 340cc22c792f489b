// Our bug, not the program's: the checker let through what the runtime
// can't do, or an executor met a graph it should never be given.
#pragma once

#include <stdexcept>

namespace ss::runtime {

struct InternalError : std::logic_error {
  using std::logic_error::logic_error;
};

}  // namespace ss::runtime
