// `shapescript build FILE -o model.so`: the program and its compiled code
// in a shared object (Engine::build_shared), which `run` and hosts load
// without compiling; `shapescript build --standalone FILE -o model.cpp`:
// the device functions as self-contained C++ (Engine::build_standalone).
#include <iostream>

#include "cli.hpp"
#include "shapescript/shapescript.hpp"

namespace ss::cli {

int run_build(const std::vector<std::string>& words, const Options& options) {
  if (words.size() != 1) return usage_error("`build` takes one FILE");
  if (options.output.empty()) return usage_error("`build` needs `-o FILE`");
  Engine engine;
  const auto diagnostics = options.standalone ? engine.build_standalone(words[0], options.output)
                                              : engine.build_shared(words[0], options.output);
  for (const auto& d : diagnostics) {
    if (options.json)
      std::cout << to_json(d) << "\n";
    else
      std::cerr << d.render({.color = options.color});
  }
  return has_errors(diagnostics) || !diagnostics.empty() ? kFailed : kOk;
}

}  // namespace ss::cli
