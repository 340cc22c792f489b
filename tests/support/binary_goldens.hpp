// tests/goldens/binary_functions.txt (made by make_binary_goldens.py):
// numpy's value of each types/binary.def row at pairs of float32 values
// (in float64) and of int32 values.
#pragma once

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/paths.hpp"

namespace ss::test {

struct BinaryGolden {
  std::string row;  // binary.def's name: "floordiv", "and"
  bool integers = false;
  double x = 0, y = 0, want = 0;
};

inline std::vector<BinaryGolden> binary_goldens() {
  std::ifstream in(std::string(kSourceDir) + "/tests/goldens/binary_functions.txt");
  std::vector<BinaryGolden> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string row, kind, x, y, want;
    fields >> row >> kind >> x >> y >> want;
    out.push_back({row, kind == "i", std::strtod(x.c_str(), nullptr),
                   std::strtod(y.c_str(), nullptr), std::strtod(want.c_str(), nullptr)});
  }
  return out;
}

// The same value: equal with the same sign (a zero's too), or both NaN.
inline bool same_value(double a, double b) {
  if (a != a || b != b) return a != a && b != b;
  return a == b && std::signbit(a) == std::signbit(b);
}

}  // namespace ss::test
