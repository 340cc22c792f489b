#include <iostream>

#include "cli.hpp"

namespace ss::cli {

int usage_error(const std::string& message) {
  std::cerr << "error: " << message
            << "\n\nFor the commands and options, run `shapescript --help`.\n";
  return kUsage;
}

}  // namespace ss::cli
