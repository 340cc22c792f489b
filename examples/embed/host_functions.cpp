// A host that gives a program its `extern fn`s, then runs its `main`:
//
//   host_functions_example FILE
//
// It binds two functions:
//   reward(s: tensor) -> []    the sum of squares of s; it refuses (throws)
//                              a tensor with a negative element
//   note(text: str) -> int     prints "host: TEXT" and returns its length
// and a sink, `alerts`, whose callback prints each record and refuses
// (throws) a negative value.
// A program that declares them otherwise gets E1607 at load, one that
// declares another E1606, a refused call fails the program with E1608, and
// a refused record E1614.
#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>

#include <shapescript/shapescript.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: host_functions_example FILE\n";
    return 2;
  }
  ss::LoadOptions options;
  options.host_functions["reward"] = [](const ss::Tensor& s) {
    double total = 0;
    for (const float x : s.to_floats()) {
      if (x < 0) throw std::domain_error("a negative reward: " + std::to_string(x));
      total += static_cast<double>(x) * x;
    }
    return ss::Tensor::scalar(static_cast<float>(total));
  };
  options.host_functions["note"] = [](const std::string& text) {
    std::cout << "host: " << text << "\n";
    return static_cast<int>(text.size());
  };
  options.sinks["alerts"] = [](const ss::SinkRecord& record) {
    for (const auto& [name, value] : record) {
      if (value < 0) throw std::domain_error("a negative " + name + ": " + std::to_string(value));
      std::cout << "alert: " << name << " = " << value << "\n";
    }
  };
  const ss::Engine engine;
  const auto diagnostics = engine.run_file(
      argv[1], "main", [](std::string_view line) { std::cout << line; }, {}, options);
  for (const auto& d : diagnostics) std::cerr << d.render();
  return ss::has_errors(diagnostics) ? 1 : 0;
}
