// `shapescript build --standalone FILE -o OUT`: the standalone build. For
// now it checks and refuses what can't be built (E1805: several devices).
#include <iostream>

#include "cli.hpp"
#include "shapescript/shapescript.hpp"

namespace ss::cli {

int run_build(const std::vector<std::string>& words, const Options& options) {
  if (words.size() != 1) return usage_error("`build` takes one FILE");
  if (!options.standalone) return usage_error("`build` needs --standalone (the only kind so far)");
  if (options.output.empty()) return usage_error("`build` needs `-o FILE`");
  Engine engine;
  const auto diagnostics = engine.build_standalone(words[0], options.output);
  for (const auto& d : diagnostics) {
    if (options.json)
      std::cout << to_json(d) << "\n";
    else
      std::cerr << d.render({.color = options.color});
  }
  return has_errors(diagnostics) || !diagnostics.empty() ? kFailed : kOk;
}

}  // namespace ss::cli
