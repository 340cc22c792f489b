#include "support/host_callback.hpp"

namespace ss::support {

std::string current_exception_text() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that isn't a std::exception";
  }
}

}  // namespace ss::support
