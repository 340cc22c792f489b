#include "chrome_trace.hpp"

#include <cstdio>

namespace ss::cli {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", c);
      out += code;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

TraceCallback ChromeTrace::callback() {
  return [this](const TraceEvent& e) {
    Event kept{e.kind == TraceEvent::Kind::node,
               std::string(e.function),
               std::string(e.node),
               std::string(e.op),
               std::string(e.executor),
               e.call,
               e.bytes,
               e.start_us,
               e.microseconds,
               e.thread};
    const std::lock_guard lock(mutex_);
    events_.push_back(std::move(kept));
  };
}

std::size_t ChromeTrace::size() const {
  const std::lock_guard lock(mutex_);
  return events_.size();
}

void ChromeTrace::write(std::ostream& out) const {
  const std::lock_guard lock(mutex_);
  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  for (std::size_t k = 0; k < events_.size(); ++k) {
    const Event& e = events_[k];
    const std::string name = e.node ? e.op + " " + e.node_name : e.function;
    char times[96];
    std::snprintf(times, sizeof times, "\"ts\": %.3f, \"dur\": %.3f", e.start_us, e.microseconds);
    out << "{\"name\": " << quoted(name) << ", \"cat\": \"" << (e.node ? "node" : "call")
        << "\", \"ph\": \"X\", " << times << ", \"pid\": 1, \"tid\": " << e.thread
        << ", \"args\": {\"function\": " << quoted(e.function) << ", \"call\": " << e.call
        << ", \"executor\": " << quoted(e.executor) << ", \"bytes\": " << e.bytes;
    if (e.node) out << ", \"node\": " << quoted(e.node_name) << ", \"op\": " << quoted(e.op);
    out << "}}" << (k + 1 < events_.size() ? ",\n" : "\n");
  }
  out << "]}\n";
}

}  // namespace ss::cli
