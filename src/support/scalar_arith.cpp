#include "support/scalar_arith.hpp"

#include <cmath>
#include <limits>

namespace ss::support {
namespace {

using Limits = std::numeric_limits<std::int64_t>;

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

// Floor division and remainder of two ints, y != 0. Only
// INT64_MIN // -1 overflows (its remainder is 0).
bool int_divmod(std::int64_t x, std::int64_t y, std::int64_t* div, std::int64_t* mod) {
  if (y == -1) {
    *mod = 0;
    if (x == Limits::min()) return false;
    *div = -x;
    return true;
  }
  std::int64_t q = x / y, r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) {
    q -= 1;
    r += y;
  }
  *div = q;
  *mod = r;
  return true;
}

ArithResult error(ArithError e) {
  return {{}, e};
}
ArithResult of_int(std::int64_t x) {
  return {Number::of_int(x)};
}
ArithResult of_float(double x) {
  return {Number::of_float(x)};
}

// x ** n for n >= 0 by squaring, failing past 64 bits.
ArithResult int_power(std::int64_t x, std::int64_t n) {
  std::int64_t result = 1;
  while (n > 0) {
    if ((n & 1) && __builtin_mul_overflow(result, x, &result)) return error(ArithError::overflow);
    n >>= 1;
    if (n > 0 && __builtin_mul_overflow(x, x, &x)) return error(ArithError::overflow);
  }
  return of_int(result);
}

ArithResult int_arith(std::string_view op, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (op == "+") return __builtin_add_overflow(a, b, &r) ? error(ArithError::overflow) : of_int(r);
  if (op == "-") return __builtin_sub_overflow(a, b, &r) ? error(ArithError::overflow) : of_int(r);
  if (op == "*") return __builtin_mul_overflow(a, b, &r) ? error(ArithError::overflow) : of_int(r);
  if (op == "/") {
    if (b == 0) return error(ArithError::division_by_zero);
    return of_float(static_cast<double>(a) / static_cast<double>(b));
  }
  if (op == "**") {
    if (b >= 0) return int_power(a, b);
    if (a == 0) return error(ArithError::division_by_zero);  // Python: 0 ** -1
    return of_float(std::pow(static_cast<double>(a), static_cast<double>(b)));
  }
  if (op == "//" || op == "%") {
    if (b == 0) return error(ArithError::division_by_zero);
    std::int64_t div = 0, mod = 0;
    const bool fits = int_divmod(a, b, &div, &mod);
    if (op == "%") return of_int(mod);
    return fits ? of_int(div) : error(ArithError::overflow);
  }
  return error(ArithError::unknown_op);
}

ArithResult float_arith(std::string_view op, double a, double b) {
  if (op == "+") return of_float(a + b);
  if (op == "-") return of_float(a - b);
  if (op == "*") return of_float(a * b);
  if (op == "/") return b == 0 ? error(ArithError::division_by_zero) : of_float(a / b);
  if (op == "**") {
    if (a == 0 && b < 0) return error(ArithError::division_by_zero);
    return of_float(std::pow(a, b));
  }
  if (op == "//" || op == "%") {
    if (b == 0) return error(ArithError::division_by_zero);
    double div = 0, mod = 0;
    float_divmod(a, b, &div, &mod);
    return of_float(op == "//" ? div : mod);
  }
  return error(ArithError::unknown_op);
}

// -1, 0 or 1 as the int `i` is below, at or above the float `f` (not NaN),
// exactly: Python's int-float comparison.
int compare_int_float(std::int64_t i, double f) {
  if (std::isinf(f)) return f > 0 ? -1 : 1;
  const double whole = std::floor(f);
  // Past int64's range every int is below (or above) it.
  if (whole >= 9223372036854775808.0) return -1;
  if (whole < -9223372036854775808.0) return 1;
  const auto w = static_cast<std::int64_t>(whole);
  if (i != w) return i < w ? -1 : 1;
  return f == whole ? 0 : -1;  // i == floor(f) < f
}

}  // namespace

ArithResult python_arith(std::string_view op, Number a, Number b) {
  if (a.integer && b.integer) return int_arith(op, a.i, b.i);
  return float_arith(op, a.as_double(), b.as_double());
}

ArithResult python_negate(Number a) {
  if (!a.integer) return of_float(-a.f);
  if (a.i == Limits::min()) return error(ArithError::overflow);
  return of_int(-a.i);
}

std::optional<bool> python_compare(std::string_view op, Number a, Number b) {
  int order = 0;  // -1, 0, 1; NaN makes every comparison but != false
  bool unordered = false;
  if (a.integer && b.integer) {
    order = a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  } else if (a.integer || b.integer) {
    const double f = a.integer ? b.f : a.f;
    unordered = std::isnan(f);
    if (!unordered) order = a.integer ? compare_int_float(a.i, f) : -compare_int_float(b.i, f);
  } else {
    unordered = std::isnan(a.f) || std::isnan(b.f);
    order = a.f < b.f ? -1 : a.f > b.f ? 1 : 0;
  }
  if (op == "!=") return unordered || order != 0;
  if (unordered && (op == "==" || op == "<" || op == "<=" || op == ">" || op == ">=")) return false;
  if (op == "==") return order == 0;
  if (op == "<") return order < 0;
  if (op == "<=") return order <= 0;
  if (op == ">") return order > 0;
  if (op == ">=") return order >= 0;
  return std::nullopt;
}

bool fits_i32(std::int64_t x) {
  return x >= std::numeric_limits<std::int32_t>::min() &&
         x <= std::numeric_limits<std::int32_t>::max();
}

double numpy_floordiv(double a, double b, bool integers) {
  if (b == 0) return integers ? 0 : a / b;  // numpy: 0 for integers, inf or NaN for floats
  double div = 0, mod = 0;
  if (integers) {
    std::int64_t d = 0, m = 0;
    int_divmod(static_cast<std::int64_t>(a), static_cast<std::int64_t>(b), &d, &m);
    return static_cast<double>(d);
  }
  float_divmod(a, b, &div, &mod);
  return div;
}

double numpy_mod(double a, double b, bool integers) {
  if (b == 0) return integers ? 0 : std::numeric_limits<double>::quiet_NaN();
  double div = 0, mod = 0;
  if (integers) {
    std::int64_t d = 0, m = 0;
    int_divmod(static_cast<std::int64_t>(a), static_cast<std::int64_t>(b), &d, &m);
    return static_cast<double>(m);
  }
  float_divmod(a, b, &div, &mod);
  return mod;
}

}  // namespace ss::support
