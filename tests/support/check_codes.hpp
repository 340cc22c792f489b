// What the checker reports for a program's text, as codes: the front end's
// tests compare them with what a mistake must give.
#pragma once

#include <string>
#include <vector>

#include "shapescript/shapescript.hpp"

namespace ss::test {

using Codes = std::vector<std::string>;

inline Codes codes(const std::vector<ss::Diagnostic>& diagnostics) {
  Codes out;
  for (const auto& d : diagnostics) out.push_back(d.code);
  return out;
}

inline Codes check_codes(const std::string& source) {
  static const ss::Engine engine;
  return codes(engine.check_source(source, "t.ss"));
}

}  // namespace ss::test
