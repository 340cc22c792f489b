// Programs written by the tests: a large valid one, and deeply nested ones.
#pragma once

#include <string>

namespace ss::test {

// A valid program of about `lines` lines: many small functions on a few dims.
std::string large_program(int lines);

}  // namespace ss::test
