#include "support/scalar_arith.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

namespace ss::support {
namespace {

// Python's float divmod (Objects/floatobject.c): exact where floor(a / b)
// would round (1 // 0.1 is 9.0, as in Python and numpy).
void float_divmod(double a, double b, double* div, double* mod) {
  double m = std::fmod(a, b);
  double d = (a - m) / b;
  if (m != 0) {
    if ((b < 0) != (m < 0)) {
      m += b;
      d -= 1.0;
    }
  } else {
    m = std::copysign(0.0, b);
  }
  double floor_d = 0;
  if (d != 0) {
    floor_d = std::floor(d);
    if (d - floor_d > 0.5) floor_d += 1.0;
  } else {
    floor_d = std::copysign(0.0, a / b);
  }
  *div = floor_d;
  *mod = m;
}

// Floor division and remainder of two integers (given as doubles within
// 2^53, so int64 holds them and their quotient exactly).
void integer_divmod(double a, double b, double* div, double* mod) {
  const auto x = static_cast<std::int64_t>(a), y = static_cast<std::int64_t>(b);
  std::int64_t q = x / y, r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) {
    q -= 1;
    r += y;
  }
  *div = static_cast<double>(q);
  *mod = static_cast<double>(r);
}

}  // namespace

bool python_integer_result(std::string_view op, double b, bool integers) {
  if (!integers || op == "/") return false;
  return op != "**" || b >= 0;
}

std::optional<double> python_arith(std::string_view op, double a, double b, bool integers) {
  if (op == "+") return a + b;
  if (op == "-") return a - b;
  if (op == "*") return a * b;
  if (op == "/") {
    if (b == 0) return std::nullopt;
    return a / b;
  }
  if (op == "**") {
    if (a == 0 && b < 0) return std::nullopt;  // Python: 0 ** -1 is a ZeroDivisionError
    return std::pow(a, b);
  }
  if (op == "//" || op == "%") {
    if (b == 0) return std::nullopt;
    double div = 0, mod = 0;
    (integers ? integer_divmod : float_divmod)(a, b, &div, &mod);
    return op == "//" ? div : mod;
  }
  return std::nullopt;
}

double numpy_floordiv(double a, double b, bool integers) {
  if (b == 0) return integers ? 0 : a / b;  // numpy: 0 for integers, inf or NaN for floats
  double div = 0, mod = 0;
  (integers ? integer_divmod : float_divmod)(a, b, &div, &mod);
  return div;
}

double numpy_mod(double a, double b, bool integers) {
  if (b == 0) return integers ? 0 : std::numeric_limits<double>::quiet_NaN();
  double div = 0, mod = 0;
  (integers ? integer_divmod : float_divmod)(a, b, &div, &mod);
  return mod;
}

}  // namespace ss::support
