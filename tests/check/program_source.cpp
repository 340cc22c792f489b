#include "check/program_source.hpp"

namespace ss::test {

std::string large_program(int lines) {
  std::string out =
      "dim D = 16\ndim C = 4\n\nmodel M:\n    param w: [D C] = normal(std=0.1)\n    param b: [C] = "
      "zeros\n\n";
  int written = 7;
  for (int i = 0; written < lines; ++i) {
    const std::string n = std::to_string(i);
    out += "fn layer" + n + "(m: M, x: [b D]) -> [b C]:\n";
    out += "    h = relu(x @ m.w + m.b) * " + n + ".5\n";
    out += "    s = softmax(h, over=C) + mean(x, over=D, keep=true)\n";
    out += "    return where(s > 0.5, s, h - logsumexp(h, over=C, keep=true))\n\n";
    written += 5;
  }
  return out;
}

}  // namespace ss::test
