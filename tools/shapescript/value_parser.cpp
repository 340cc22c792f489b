#include "value_parser.hpp"

#include <cctype>
#include <cstdlib>
#include <vector>

namespace ss::cli {
namespace {

struct Parser {
  const std::string& s;
  std::size_t at = 0;
  std::vector<double> values;
  std::string error;

  void space() {
    while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
  }

  // Parses one value; returns its shape, or nullopt.
  std::optional<std::vector<std::int64_t>> value(int depth) {
    space();
    if (depth > 32) return fail("nested too deeply");
    if (at < s.size() && s[at] == '[') {
      ++at;
      std::optional<std::vector<std::int64_t>> inner;
      std::int64_t count = 0;
      space();
      while (at < s.size() && s[at] != ']') {
        auto shape = value(depth + 1);
        if (!shape) return std::nullopt;
        if (inner && *inner != *shape) return fail("rows of different lengths");
        inner = shape;
        ++count;
        space();
        if (at < s.size() && s[at] == ',') ++at;
        space();
      }
      if (at >= s.size()) return fail("a `[` is never closed");
      ++at;
      if (!inner) return std::vector<std::int64_t>{0};  // `[]`: no elements, shape [0]
      std::vector<std::int64_t> shape = {count};
      shape.insert(shape.end(), inner->begin(), inner->end());
      return shape;
    }
    const char* begin = s.c_str() + at;
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end == begin) return fail("expected a number or `[` at `" + s.substr(at) + "`");
    at += static_cast<std::size_t>(end - begin);
    values.push_back(v);
    return std::vector<std::int64_t>{};
  }

  std::optional<std::vector<std::int64_t>> fail(std::string why) {
    error = std::move(why);
    return std::nullopt;
  }
};

}  // namespace

std::optional<Tensor> parse_value(const std::string& text, std::string* why) {
  const bool integers = text.rfind("i32:", 0) == 0;
  const std::string body = integers ? text.substr(4) : text;
  Parser p{body};
  const auto shape = p.value(0);
  p.space();
  if (shape && p.at != body.size()) p.error = "text after the value: `" + body.substr(p.at) + "`";
  if (!shape || !p.error.empty()) {
    if (why) *why = p.error;
    return std::nullopt;
  }
  if (integers) {
    std::vector<std::int32_t> ints(p.values.begin(), p.values.end());
    return Tensor::of(std::move(ints), *shape);
  }
  return Tensor::of(std::vector<float>(p.values.begin(), p.values.end()), *shape);
}

}  // namespace ss::cli
