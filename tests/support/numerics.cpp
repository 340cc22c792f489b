#include "support/numerics.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "support/paths.hpp"

namespace ss::test {
namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// The cells of a table line `| a | b | ... |`.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line.substr(1));
  std::string cell;
  while (std::getline(in, cell, '|')) out.push_back(trimmed(cell));
  if (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

double number(const std::string& cell, const std::string& row) {
  std::size_t used = 0;
  const double x = std::stod(cell, &used);
  if (used != cell.size()) throw std::runtime_error("docs/numerics.md, row " + row + ": " + cell);
  return x;
}

std::map<std::string, Tolerance> read_table() {
  const std::string path = std::string(kSourceDir) + "/docs/numerics.md";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("can't read " + path);
  std::map<std::string, Tolerance> rows;
  std::vector<std::string> header;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("|", 0) != 0) {
      header.clear();
      continue;
    }
    const auto c = cells(line);
    if (header.empty()) {
      header = c;
      continue;
    }
    if (c.empty() || c[0].rfind("---", 0) == 0) continue;
    const auto column = [&](const char* name) -> const std::string& {
      const auto it = std::find(header.begin(), header.end(), name);
      if (it == header.end() || static_cast<std::size_t>(it - header.begin()) >= c.size())
        throw std::runtime_error("docs/numerics.md's table has no column `" + std::string(name) +
                                 "`");
      return c[static_cast<std::size_t>(it - header.begin())];
    };
    Tolerance t;
    t.row = column("row");
    if (t.row.size() > 2 && t.row.front() == '`' && t.row.back() == '`')
      t.row = t.row.substr(1, t.row.size() - 2);
    t.absolute = number(column("absolute"), t.row);
    t.relative = number(column("relative"), t.row);
    t.ulp = number(column("ulp"), t.row);
    const std::string& scale = column("scale");
    if (scale != "tensor" && scale != "element")
      throw std::runtime_error("docs/numerics.md, row " + t.row + ": scale " + scale);
    t.tensor_scale = scale == "tensor";
    rows[t.row] = t;
  }
  return rows;
}

}  // namespace

const Tolerance& tolerance(const std::string& row) {
  static const std::map<std::string, Tolerance> rows = read_table();
  const auto it = rows.find(row);
  if (it == rows.end()) throw std::runtime_error("docs/numerics.md has no row `" + row + "`");
  return it->second;
}

double tensor_scale(const std::vector<double>& want) {
  double scale = 1;
  for (const double x : want)
    if (std::isfinite(x)) scale = std::max(scale, std::fabs(x));
  return scale;
}

double float_ulp(double want) {
  const float w = std::fabs(static_cast<float>(want));
  if (!std::isfinite(w)) return INFINITY;
  return static_cast<double>(std::nextafter(w, INFINITY)) - static_cast<double>(w);
}

bool agrees(double got, double want, double scale, const Tolerance& t) {
  if (got == want || (std::isnan(got) && std::isnan(want))) return true;
  const double s = t.tensor_scale ? scale : std::fabs(want);
  const double u = t.ulp > 0 ? t.ulp * float_ulp(want) : 0;
  return std::fabs(got - want) <= t.absolute + t.relative * s + u;
}

}  // namespace ss::test
