// `shapescript check FILE...`: every file's diagnostics, rustc-style, on
// standard error; "FILE: no errors" on standard output for each clean one.
#include <iostream>

#include "cli.hpp"
#include "shapescript/shapescript.hpp"

namespace ss::cli {

int run_check(const std::vector<std::string>& files, const Options& options) {
  // `--dump-ir=fuse` and `plan` list the plans of the executor a run with
  // the same options would load (a device's that can't open: none).
  Engine engine(
      {.device =
           Device::parse(options.device.empty() ? "cpu" : options.device).value_or(Device::cpu()),
       .executor = options.fast ? Executor::fast : Executor::reference,
       .threads = options.threads,
       .precision = parse_precision(options.precision).value_or(Precision::f32),
       .numerics = parse_numerics(options.numerics).value_or(Numerics::fast)});
  bool failed = false;
  for (const auto& file : files) {
    std::vector<Diagnostic> diagnostics;
    if (!options.dump_ir.empty())
      std::cout << engine.ir_listing(file, &diagnostics, options.dump_ir);
    else
      diagnostics = engine.check_file(file);
    if (options.json) {
      for (const auto& d : diagnostics) std::cout << to_json(d) << "\n";
    } else {
      for (const auto& d : diagnostics) std::cerr << d.render({.color = options.color});
    }
    if (has_errors(diagnostics)) {
      failed = true;
    } else if (!options.json && options.dump_ir.empty()) {
      std::cout << file << ": no errors\n";
    }
  }
  return failed ? kFailed : kOk;
}

}  // namespace ss::cli

namespace ss::cli {

int run_explain(const std::string& code) {
  const std::string entry = explain(code);
  if (entry.empty())
    return usage_error("`" + code + "` is not an error code; codes look like E0603");
  std::cout << entry;
  return kOk;
}

}  // namespace ss::cli
