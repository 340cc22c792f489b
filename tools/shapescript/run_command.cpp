// `shapescript run FILE [FUNCTION]`: checks the program and runs FUNCTION
// (main by default) on the reference runtime, printing what it prints.
#include <iostream>

#include "cli.hpp"
#include "shapescript/shapescript.hpp"
#include "value_parser.hpp"

namespace ss::cli {

int run_run(const std::vector<std::string>& words, const Options& options) {
  if (words.empty() || words.size() > 2)
    return usage_error("`run` takes a FILE and, optionally, a FUNCTION");
  const std::string function = words.size() == 2 ? words[1] : "main";
  std::map<std::string, Tensor> args;
  for (const auto& [name, text] : options.args) {
    std::string why;
    auto value = parse_value(text, &why);
    if (!value) return usage_error("`--arg " + name + "=" + text + "`: " + why);
    args[name] = std::move(*value);
  }
  Engine engine;
  const auto diagnostics = engine.run_file(words[0], function,
                                           [](std::string_view line) {
                                             std::cout << line;
                                             std::cout.flush();
                                           },
                                           args, {.dims = options.dims});
  for (const auto& d : diagnostics) {
    if (options.json)
      std::cout << to_json(d) << "\n";
    else
      std::cerr << d.render({.color = options.color});
  }
  return has_errors(diagnostics) ? kFailed : kOk;
}

}  // namespace ss::cli
