#include "file_sink.hpp"

#include <cmath>
#include <cstdio>

namespace ss::cli {
namespace {

// The shortest text that reads back as the same double; integers plainly.
std::string number_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, v);
    if (std::strtod(buffer, nullptr) == v) break;
  }
  return buffer;
}

}  // namespace

std::string record_text(const SinkRecord& record) {
  std::string out;
  char value[32];
  for (const auto& [name, v] : record) {
    std::snprintf(value, sizeof value, "%.6g", v);
    out += (out.empty() ? "" : " ") + name + "=" + value;
  }
  return out;
}

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

FileSink::FileSink(const std::string& path) : out_(path, std::ios::trunc) {
  csv_ = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
}

void FileSink::write(const SinkRecord& record) {
  if (csv_) {
    std::vector<std::string> names;
    for (const auto& [name, value] : record) names.push_back(name);
    if (names != header_) {
      header_ = names;
      for (std::size_t i = 0; i < names.size(); ++i) out_ << (i ? "," : "") << names[i];
      out_ << "\n";
    }
    for (std::size_t i = 0; i < record.size(); ++i)
      out_ << (i ? "," : "") << number_text(record[i].second);
    out_ << "\n";
  } else {
    out_ << "{";
    for (std::size_t i = 0; i < record.size(); ++i) {
      const double v = record[i].second;
      out_ << (i ? ", " : "") << json_string(record[i].first) << ": "
           << (std::isfinite(v) ? number_text(v) : "null");
    }
    out_ << "}\n";
  }
  out_.flush();
}

}  // namespace ss::cli
