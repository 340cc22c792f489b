// A sink bound to a file by `--sink NAME=FILE`: CSV for a .csv name (a
// header line of the record's names, then a row per record, a new header
// line when the names change), JSON lines otherwise (an object per record).
// Each record is written whole as it comes, so a killed run keeps what it
// wrote; one the file can't take (the disk full) is cut back off, so the
// file ends with the last whole record, and the run stops with E1706.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shapescript/module.hpp"

namespace ss::cli {

class FileSink {
 public:
  explicit FileSink(const std::string& path);
  ~FileSink();
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;
  bool ok() const { return fd_ >= 0; }
  // Throws std::runtime_error when the file can't take the record (the
  // disk full): the run stops with E1706 rather than lose records quietly.
  void write(const SinkRecord& record);

 private:
  std::string path_;
  int fd_ = -1;
  std::int64_t written_ = 0;  // the bytes of whole records
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
