// Running a program from a test: the CLI, or a shell command from the error
// catalog, with a clean environment (no SHAPESCRIPT_* from the caller) plus
// the variables a test sets.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace ss::test {

struct ProcessResult {
  int exit_code = -1;  // 128 + N when killed by signal N
  std::string out;     // standard output; with merge_stderr, both streams in order
  std::string err;     // standard error, unless merged
};

struct ProcessOptions {
  std::map<std::string, std::string> env;  // added to the cleaned environment
  std::string cwd;                         // empty: the test's own
  bool merge_stderr = false;
};

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// Runs `command` with /bin/sh -c.
ProcessResult run_shell(const std::string& command, const ProcessOptions& options = {});

// A fresh folder under the system's temporary folder, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Writes a file in the folder and returns its path.
  std::string write(const std::string& name, const std::string& contents) const;

 private:
  std::string path_;
};

std::string read_file(const std::string& path);

}  // namespace ss::test
