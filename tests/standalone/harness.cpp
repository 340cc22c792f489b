// Runs one function of a standalone build (`model.cpp`, included from the
// folder given with -I) on inputs read from a file, printing its outputs:
//
//   harness INPUTS FUNCTION
//
// INPUTS has a line per input: NAME DTYPE RANK DIMS... VALUES... (DTYPE as
// ssa's numbers). Each output prints as one line: its size, then its
// values with nine significant digits.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "model.cpp"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  std::ifstream file(argv[1]);
  std::map<std::string, ssa::Tensor> in;
  for (std::string line; std::getline(file, line);) {
    std::istringstream s(line);
    std::string name;
    int dtype = 0;
    std::size_t rank = 0;
    s >> name >> dtype >> rank;
    ssa::Shape shape(rank);
    for (auto& d : shape) s >> d;
    ssa::Tensor t = ssa::make(static_cast<ssa::DType>(dtype), shape);
    for (auto& v : t.v) s >> v;
    in[name] = t;
  }
  const auto found = model::functions.find(argv[2]);
  if (found == model::functions.end()) return 1;
  const std::vector<ssa::Tensor> out = found->second(in);
  for (const auto& t : out) {
    std::printf("%lld", static_cast<long long>(t.size()));
    for (const double v : t.v) std::printf(" %.9g", v);
    std::printf("\n");
  }
  return out.empty() ? 1 : 0;
}
