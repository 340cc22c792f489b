// `shapescript check FILE...`: every file's diagnostics, rustc-style, on
// standard error; "FILE: no errors" on standard output for each clean one.
#include <iostream>

#include "cli.hpp"
#include "shapescript/shapescript.hpp"

namespace ss::cli {

int run_check(const std::vector<std::string>& files, const Options& options) {
  Engine engine;
  bool failed = false;
  for (const auto& file : files) {
    const auto diagnostics = engine.check_file(file);
    for (const auto& d : diagnostics) std::cerr << d.render({.color = options.color});
    if (has_errors(diagnostics)) {
      failed = true;
    } else {
      std::cout << file << ": no errors\n";
    }
  }
  return failed ? kFailed : kOk;
}

}  // namespace ss::cli
