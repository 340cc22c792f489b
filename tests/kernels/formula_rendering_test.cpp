// Each function of two values (src/types/binary.def) as the renderers print
// it, compiled by the host's g++ and run at every pair of the numpy goldens
// (tests/goldens/binary_functions.txt): the standalone build's C++, the
// CUDA executor's pointwise C in double (integers exact there) and its C in
// float (fused kernels, and pointwise work on floats), CUDA's own names
// defined for the host. The standalone's and CUDA's double give numpy's
// value; CUDA's float gives it rounded to float for every kExact row.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "ir/formulas.hpp"
#include "kernels/cuda_elementwise.hpp"
#include "standalone/emit_formulas.hpp"
#include "support/binary_goldens.hpp"
#include "support/process.hpp"
#include "types/binary_functions.hpp"

namespace {

constexpr const char* kHostShims = R"(#include <math.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
// CUDA's names, for the host.
#define __device__
#define __forceinline__ inline
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
)";

// The program: reads `row integers x y` lines, writes the standalone's,
// CUDA's double and CUDA's float value of each.
std::string host_program() {
  std::ostringstream cuda_float, cuda_double;
  const auto& rows = ss::types::binary_functions();
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto op = static_cast<ss::ir::Binary>(k);
    const bool boolean = ss::types::yields_bool(rows[k].result);
    const auto value = [&](const std::string& text, const char* one, const char* zero) {
      return boolean ? "(" + text + " ? " + one + " : " + zero + ")" : text;
    };
    cuda_float << "    case " << k << ":\n      return "
               << value(
                      ss::ir::render(ss::ir::formula(op), "x", ss::cuda::float_function, true, "y"),
                      "1.0f", "0.0f")
               << ";\n";
    cuda_double << "    case " << k << ":\n      return integers ? "
                << value(ss::ir::render(ss::ir::formula(op, true), "x", ss::cuda::double_function,
                                        false, "y"),
                         "1.0", "0.0")
                << " : "
                << value(ss::ir::render(ss::ir::formula(op), "x", ss::cuda::double_function, false,
                                        "y"),
                         "1.0", "0.0")
                << ";\n";
  }
  return std::string(kHostShims) + ss::cuda::kFormulaHelpers +
         ss::standalone::elementwise_formulas() +
         "float cuda_float(int op, float x, float y) {\n  switch (op) {\n" + cuda_float.str() +
         "  }\n  return 0;\n}\n"
         "double cuda_double(int op, double x, double y, bool integers) {\n  switch (op) {\n" +
         cuda_double.str() +
         "  }\n  return 0;\n}\n"
         "int main() {\n"
         "  int op, integers;\n  double x, y;\n"
         "  while (std::scanf(\"%d %d %la %la\", &op, &integers, &x, &y) == 4)\n"
         "    std::printf(\"%a %a %a\\n\", ssa::binary_formula(op, x, y, integers != 0),\n"
         "                cuda_double(op, x, y, integers != 0),\n"
         "                (double)cuda_float(op, (float)x, (float)y));\n"
         "}\n";
}

int row_named(const std::string& name) {
  const auto& rows = ss::types::binary_functions();
  for (std::size_t k = 0; k < rows.size(); ++k)
    if (rows[k].name == name) return static_cast<int>(k);
  return -1;
}

bool agrees(double got, double want, bool integers) {  // an integer's zero has no sign
  if (integers) return got == want || (std::isnan(got) && std::isnan(want));
  return ss::test::same_value(got, want);
}

}  // namespace

TEST_CASE("the rendered C of each function of two values gives numpy's value, compiled by g++") {
  ss::test::TempDir dir;
  const std::string source = dir.write("formulas.cpp", host_program());
  const auto compiled = ss::test::run_process(
      {"g++", "-std=c++17", "-O1", source, "-o", dir.file("formulas")}, {.merge_stderr = true});
  REQUIRE_MESSAGE(compiled.exit_code == 0, compiled.out);

  const auto goldens = ss::test::binary_goldens();
  REQUIRE(goldens.size() > 10000);
  std::string input;
  for (const auto& g : goldens) {
    char line[160];
    std::snprintf(line, sizeof line, "%d %d %a %a\n", row_named(g.row), g.integers ? 1 : 0, g.x,
                  g.y);
    input += line;
  }
  const auto ran = ss::test::run_shell("'" + dir.file("formulas") + "' < '" +
                                       dir.write("pairs.txt", input) + "'");
  REQUIRE(ran.exit_code == 0);
  std::istringstream out(ran.out);
  std::size_t wrong = 0, exact_float = 0;
  for (const auto& g : goldens) {
    std::string a, b, c;
    REQUIRE(static_cast<bool>(out >> a >> b >> c));
    const double standalone = std::strtod(a.c_str(), nullptr);
    const double cuda_double = std::strtod(b.c_str(), nullptr);
    const double cuda_float = std::strtod(c.c_str(), nullptr);
    const auto op = static_cast<ss::ir::Binary>(row_named(g.row));
    const std::string what = g.row + (g.integers ? " of integers " : " ");
    if (!agrees(standalone, g.want, g.integers) && wrong++ < 10)
      MESSAGE(what << g.x << ", " << g.y << ": numpy " << g.want << ", standalone " << standalone);
    if (!agrees(cuda_double, g.want, g.integers) && wrong++ < 10)
      MESSAGE(what << g.x << ", " << g.y << ": numpy " << g.want << ", CUDA's double "
                   << cuda_double);
    if (g.integers || ss::ir::formula(op).width != ss::ir::Formula::kExact) continue;
    ++exact_float;
    const double want = static_cast<float>(g.want);
    if (!agrees(cuda_float, want, false) && wrong++ < 10)
      MESSAGE(what << g.x << ", " << g.y << ": numpy " << want << " in float, CUDA's float "
                   << cuda_float);
  }
  CHECK(wrong == 0);
  CHECK(exact_float > 5000);
}
