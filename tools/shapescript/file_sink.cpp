#include "file_sink.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>

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

FileSink::FileSink(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  csv_ = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
}

FileSink::~FileSink() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSink::write(const SinkRecord& record) {
  std::string text;
  const std::vector<std::string> header_before = header_;
  if (csv_) {
    std::vector<std::string> names;
    for (const auto& [name, value] : record) names.push_back(name);
    if (names != header_) {
      header_ = names;
      for (std::size_t i = 0; i < names.size(); ++i) text += (i ? "," : "") + names[i];
      text += "\n";
    }
    for (std::size_t i = 0; i < record.size(); ++i)
      text += (i ? "," : "") + number_text(record[i].second);
    text += "\n";
  } else {
    text += "{";
    for (std::size_t i = 0; i < record.size(); ++i) {
      const double v = record[i].second;
      text += (i ? ", " : "") + json_string(record[i].first) + ": " +
              (std::isfinite(v) ? number_text(v) : "null");
    }
    text += "}\n";
  }
  std::size_t done = 0;
  int error = 0;
  while (done < text.size() && error == 0) {
    const ssize_t put = ::write(fd_, text.data() + done, text.size() - done);
    if (put < 0 && errno != EINTR) error = errno;
    if (put > 0) done += static_cast<std::size_t>(put);
  }
  if (error != 0) {
    // What part of the record got in goes: the file ends with a whole one.
    if (::ftruncate(fd_, written_) == 0) ::lseek(fd_, written_, SEEK_SET);
    header_ = header_before;
    // A system_error: the run stops with E1706 (a file that can't be written).
    throw std::system_error(error, std::generic_category(), "can't write `" + path_ + "`");
  }
  written_ += static_cast<std::int64_t>(text.size());
}

}  // namespace ss::cli
