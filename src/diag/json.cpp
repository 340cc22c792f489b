// Diagnostics as JSON, for the CLI's --format json and for tools.
#include <cstdio>
#include <string>

#include "shapescript/diagnostic.hpp"
#include "support/json_string.hpp"

namespace ss {
namespace {

const char* severity_name(Severity s) {
  return s == Severity::error ? "error" : s == Severity::warning ? "warning" : "note";
}

}  // namespace

std::string to_json(const Diagnostic& d) {
  std::string out = "{\"code\":";
  support::append_json_string(out, d.code);
  out += ",\"severity\":";
  support::append_json_string(out, severity_name(d.severity));
  out += ",\"file\":";
  support::append_json_string(out, d.location.file);
  out += ",\"line\":" + std::to_string(d.location.line);
  out += ",\"column\":" + std::to_string(d.location.column);
  out += ",\"message\":";
  support::append_json_string(out, d.message);
  out += ",\"labels\":[";
  for (std::size_t i = 0; i < d.labels.size(); ++i) {
    const Label& l = d.labels[i];
    if (i) out += ',';
    out += "{\"line\":" + std::to_string(l.start.line) +
           ",\"column\":" + std::to_string(l.start.column) +
           ",\"length\":" + std::to_string(l.length) + ",\"text\":";
    support::append_json_string(out, l.text);
    out += std::string(",\"primary\":") + (l.primary ? "true" : "false") + ",\"line_text\":";
    support::append_json_string(out, l.line_text);
    out += "}";
  }
  out += "],\"notes\":[";
  for (std::size_t i = 0; i < d.notes.size(); ++i) {
    if (i) out += ',';
    support::append_json_string(out, d.notes[i]);
  }
  out += "],\"help\":";
  support::append_json_string(out, d.help);
  out += "}";
  return out;
}

}  // namespace ss
