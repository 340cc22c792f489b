#include "support/digits_fixture.hpp"

#include <cmath>
#include <sstream>

#include "support/paths.hpp"
#include "support/process.hpp"

namespace ss::test::digits {
namespace {

template <typename F>
Array formula(std::vector<std::int64_t> shape, F f) {
  Array a{{}, shape};
  const std::int64_t rows = shape[0], cols = shape.size() == 2 ? shape[1] : 1;
  for (std::int64_t k = 0; k < rows * cols; ++k)
    a.values.push_back(static_cast<float>(f(k / cols, k % cols)));
  return a;
}

}  // namespace

std::map<std::string, Array> parameters() {
  return {
      {"m.w1",
       formula({D, H}, [](auto i, auto j) { return 0.1 * std::sin(0.37 * i + 0.11 * j + 0.5); })},
      {"m.b1", formula({H}, [](auto i, auto) { return 0.01 * std::cos(0.3 * i); })},
      {"m.w2", formula({H, C}, [](auto i, auto j) { return 0.1 * std::sin(0.23 * i - 0.17 * j); })},
      {"m.b2", formula({C}, [](auto i, auto) { return 0.02 * std::cos(0.7 * i); })},
  };
}

Array pixels(std::int64_t b) {
  return formula({b, D}, [](auto n, auto d) { return 8 * std::sin(0.013 * n + 0.07 * d) + 8; });
}

std::vector<std::int32_t> labels(std::int64_t b) {
  std::vector<std::int32_t> out;
  for (std::int64_t n = 0; n < b; ++n) out.push_back(static_cast<std::int32_t>((n * 7) % C));
  return out;
}

const std::vector<double>& golden(const std::string& key) {
  static const std::map<std::string, std::vector<double>> all = [] {
    std::map<std::string, std::vector<double>> out;
    std::istringstream in(read_file(std::string(kSourceDir) + "/tests/goldens/digits_mlp.txt"));
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      std::string what, b;
      words >> what >> b;
      auto& values = out[what + " " + b];
      for (double v; words >> v;) values.push_back(v);
    }
    return out;
  }();
  return all.at(key);
}

}  // namespace ss::test::digits
