#include "runtime/core/format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "support/format_spec.hpp"

namespace ss::runtime {
namespace {

// The fewest significant digits that read back as the same value.
std::string shortest_digits(double value, DType dtype, bool scientific) {
  char buffer[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, scientific ? "%.*e" : "%.*g",
                  scientific ? digits - 1 : digits, value);
    const double back = std::strtod(buffer, nullptr);
    const bool same = dtype == DType::f32 || dtype == DType::f16 || dtype == DType::bf16
                          ? static_cast<float>(back) == static_cast<float>(value)
                          : back == value;
    if (same) break;
  }
  return buffer;
}

std::string element(double value, DType dtype, bool in_array) {
  if (dtype == DType::boolean) return value != 0 ? "True" : "False";
  if (dtype == DType::i32) return std::to_string(static_cast<long long>(value));
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::string s = format_float(value, dtype);
  if (!in_array) return s;
  // In an array numpy keeps at most 8 digits after the point (its
  // precision), fewer where fewer tell the value apart.
  const auto dot = s.find('.');
  if (dot != std::string::npos && s.find('e') == std::string::npos && s.size() - dot - 1 > 8) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.8f", value);
    s = buffer;
    while (s.back() == '0') s.pop_back();
  }
  // numpy writes an array's whole floats as `1.`, a scalar's as `1.0`.
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.pop_back();
  return s;
}

}  // namespace

std::string format_float(double value, DType dtype) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  const double magnitude = std::fabs(value);
  const bool scientific = magnitude != 0 && (magnitude < 1e-4 || magnitude >= 1e16);
  std::string s = shortest_digits(value, dtype, scientific);
  if (scientific) {
    // 1.5e-05 as Python writes it: no trailing zeros, two-digit exponent at least.
    const auto e = s.find('e');
    std::string mantissa = s.substr(0, e), exponent = s.substr(e + 1);
    if (mantissa.find('.') != std::string::npos) {
      while (mantissa.back() == '0') mantissa.pop_back();
      if (mantissa.back() == '.') mantissa.pop_back();
    }
    const char sign = exponent[0];
    std::string digits = exponent.substr(1);
    while (digits.size() > 2 && digits[0] == '0') digits.erase(0, 1);
    return mantissa + "e" + sign + digits;
  }
  if (s.find('e') != std::string::npos) {  // %g chose an exponent: write it out positionally
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.1f", value);
    s = buffer;
  }
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

std::string format_tensor(const Tensor& t) {
  if (t.rank() == 0) return element(t.get(0), t.dtype(), false);
  std::vector<std::string> items;
  std::size_t width = 0;
  for (std::int64_t i = 0; i < t.size(); ++i) {
    items.push_back(element(t.get(i), t.dtype(), true));
    width = std::max(width, items.back().size());
  }
  if (is_float(t.dtype())) {
    // numpy lines up the decimal points: whole parts padded on the left,
    // fractions on the right.
    std::size_t whole = 0, fraction = 0;
    for (const auto& s : items) {
      const auto dot = s.find('.');
      if (dot == std::string::npos || s.find('e') != std::string::npos) {
        whole = std::max(whole, s.size());
        continue;
      }
      whole = std::max(whole, dot);
      fraction = std::max(fraction, s.size() - dot - 1);
    }
    for (auto& s : items) {
      const auto dot = s.find('.');
      if (dot == std::string::npos || s.find('e') != std::string::npos) {
        s = std::string(whole + 1 + fraction > s.size() ? whole + 1 + fraction - s.size() : 0,
                        ' ') +
            s;
        continue;
      }
      s = std::string(whole - dot, ' ') + s + std::string(fraction - (s.size() - dot - 1), ' ');
    }
  } else {
    for (auto& s : items)
      s = std::string(width - s.size(), ' ') + s;  // numbers and bools: on the right
  }
  std::string out;
  std::vector<std::int64_t> index(static_cast<std::size_t>(t.rank()), 0);
  for (std::int64_t flat = 0; flat < t.size(); ++flat) {
    std::size_t opened = 0;  // how many axes start here
    for (std::size_t k = index.size(); k-- > 0 && index[k] == 0;) ++opened;
    if (flat > 0) out += ' ';
    out.append(opened, '[');
    out += items[static_cast<std::size_t>(flat)];
    std::size_t closed = 0;
    for (std::size_t k = index.size(); k-- > 0;) {
      if (++index[k] < t.shape()[k]) break;
      index[k] = 0;
      ++closed;
    }
    out.append(closed, ']');
  }
  if (t.size() == 0)
    out = std::string(static_cast<std::size_t>(t.rank()), '[') +
          std::string(static_cast<std::size_t>(t.rank()), ']');
  return out;
}

bool format_number(support::Number number, std::string_view spec, std::string* out) {
  const auto parsed = support::parse_format_spec(spec);
  if (!parsed) return false;
  const int width = parsed->width, precision = parsed->precision;
  const double value = number.as_double();
  char buffer[160];
  if (number.integer && (parsed->type == 'd' || !parsed->typed)) {
    std::snprintf(buffer, sizeof buffer, "%*lld", width, static_cast<long long>(number.i));
  } else if (spec.empty()) {
    *out = format_float(value, DType::f32);
    return true;
  } else if (parsed->type == 'd') {
    std::snprintf(buffer, sizeof buffer, "%*lld", width,
                  static_cast<long long>(std::llround(value)));
  } else if (parsed->type == '%') {
    std::snprintf(buffer, sizeof buffer, "%*.*f%%", width > 0 ? width - 1 : 0,
                  precision < 0 ? 6 : precision, value * 100);
  } else {
    const char format[] = {'%', '*', '.', '*', parsed->type, '\0'};
    std::snprintf(buffer, sizeof buffer, format, width, precision < 0 ? 6 : precision, value);
  }
  *out = buffer;
  return true;
}

}  // namespace ss::runtime
