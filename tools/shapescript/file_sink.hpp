// A sink bound to a file by `--sink NAME=FILE`: CSV for a .csv name (a
// header line of the record's names, then a row per record, a new header
// line when the names change), JSON lines otherwise (an object per record).
// Each record is flushed, so a killed run keeps what it wrote.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "shapescript/module.hpp"

namespace ss::cli {

class FileSink {
 public:
  explicit FileSink(const std::string& path);
  bool ok() const { return static_cast<bool>(out_); }
  void write(const SinkRecord& record);

 private:
  std::ofstream out_;
  bool csv_ = false;
  std::vector<std::string> header_;
};

// A sink the command line doesn't bind: what `run` tells of it.
struct UnboundSink {
  std::int64_t records = 0;
  SinkRecord last;
};

// A record for a person to read: "epoch=3 loss=0.0123".
std::string record_text(const SinkRecord& record);

}  // namespace ss::cli
