// Diagnostics as JSON, for the CLI's --format json and for tools.
#include <cstdio>
#include <string>

#include "shapescript/diagnostic.hpp"

namespace ss {
namespace {

void append_string(std::string& out, std::string_view text) {
  out += '"';
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

const char* severity_name(Severity s) {
  return s == Severity::error ? "error" : s == Severity::warning ? "warning" : "note";
}

}  // namespace

std::string to_json(const Diagnostic& d) {
  std::string out = "{\"code\":";
  append_string(out, d.code);
  out += ",\"severity\":";
  append_string(out, severity_name(d.severity));
  out += ",\"file\":";
  append_string(out, d.location.file);
  out += ",\"line\":" + std::to_string(d.location.line);
  out += ",\"column\":" + std::to_string(d.location.column);
  out += ",\"message\":";
  append_string(out, d.message);
  out += ",\"labels\":[";
  for (std::size_t i = 0; i < d.labels.size(); ++i) {
    const Label& l = d.labels[i];
    if (i) out += ',';
    out += "{\"line\":" + std::to_string(l.start.line) +
           ",\"column\":" + std::to_string(l.start.column) +
           ",\"length\":" + std::to_string(l.length) + ",\"text\":";
    append_string(out, l.text);
    out += std::string(",\"primary\":") + (l.primary ? "true" : "false") + ",\"line_text\":";
    append_string(out, l.line_text);
    out += "}";
  }
  out += "],\"notes\":[";
  for (std::size_t i = 0; i < d.notes.size(); ++i) {
    if (i) out += ',';
    append_string(out, d.notes[i]);
  }
  out += "],\"help\":";
  append_string(out, d.help);
  out += "}";
  return out;
}

}  // namespace ss
