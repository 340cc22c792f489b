// How long `check` takes on a large program, beside CPython compiling a
// Python file of the same size (parse and bytecode, no types): the nearest
// peer for a front end. Prints a table; asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "check/program_source.hpp"
#include "shapescript/shapescript.hpp"

namespace {

double median_ms(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The same shape of program in Python: a function per layer.
std::string python_program(int lines) {
  std::string out = "import math\n";
  for (int i = 0, written = 1; written < lines; ++i, written += 5) {
    const std::string n = std::to_string(i);
    out += "def layer" + n + "(m, x):\n    h = max(0.0, x * m.w + m.b) * " + n +
           ".5\n    s = math.exp(h) + sum(x) / len(x)\n    return s if s > 0.5 else h - "
           "math.log(h)\n\n";
  }
  return out;
}

double cpython_ms(const std::string& source) {
  const char* path = "/tmp/shapescript_bench_peer.py";
  std::ofstream(path) << source;
  const std::string command = "python3 -c \"import time; s=open('" + std::string(path) +
                              "').read(); t=[]\nfor _ in range(9):\n a=time.perf_counter(); "
                              "compile(s, 'p', 'exec'); t.append(time.perf_counter()-a)\n"
                              "print(sorted(t)[4]*1000)\" 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return -1;
  double ms = -1;
  if (std::fscanf(pipe, "%lf", &ms) != 1) ms = -1;
  ::pclose(pipe);
  return ms;
}

}  // namespace

int main() {
  const ss::Engine engine;
  std::printf("%-28s %12s %14s %8s\n", "check", "shapescript", "CPython compile", "ratio");
  for (int lines : {1000, 5000, 10000}) {
    const std::string program = ss::test::large_program(lines);
    std::vector<double> times;
    for (int r = 0; r < 9; ++r) {
      const auto start = std::chrono::steady_clock::now();
      const auto diagnostics = engine.check_source(program, "bench.ss");
      times.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
      if (!diagnostics.empty()) {
        std::fprintf(stderr, "bench: the generated program has errors:\n%s",
                     diagnostics[0].render().c_str());
        return 1;
      }
    }
    const double ours = median_ms(times);
    const double peer = cpython_ms(python_program(lines));
    const std::string label = std::to_string(lines) + " lines";
    if (peer > 0)
      std::printf("%-28s %9.2f ms %11.2f ms %7.2fx\n", label.c_str(), ours, peer, ours / peer);
    else
      std::printf("%-28s %9.2f ms %14s %8s\n", label.c_str(), ours, "(no python3)", "-");
  }
  std::printf("target: 5000 lines well under 100 ms (lex, parse, check; median of 9)\n");
  return 0;
}
