// The `shapescript` command: one host of the library among others. Each
// command is a function from its arguments to an exit status.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "shapescript/options.hpp"

namespace ss::cli {

// Exit statuses: success, a program or device error, a bad command line.
inline constexpr int kOk = 0;
inline constexpr int kFailed = 1;
inline constexpr int kUsage = 2;

struct Options {
  bool color = false;
  bool json = false;    // --format json: one JSON object per diagnostic, on standard output
  std::string dump_ir;  // --dump-ir=PASS: print the lowered program after that pass
  std::vector<std::pair<std::string, std::string>> args;  // --arg NAME=VALUE, for run
  std::map<std::string, std::int64_t> dims;               // --dim NAME=SIZE, for run
  std::map<std::string, std::string> sinks;               // --sink NAME=FILE, for run
  bool stats = false;                       // --stats: what each worker did, after a run
  std::string trace;                        // --trace FILE: Chrome's trace format, after a run
  std::int64_t collective_timeout_ms = -1;  // --collective-timeout MS; -1: the library's
  std::string distributed;        // --distributed mpi|none; "": mpi when an MPI launcher started us
  bool standalone = false;        // --standalone, for build
  std::string output;             // -o FILE, for build
  std::string device;             // --device cpu|cuda:N, for run; "": the CPU
  bool fast = true;               // --executor fast (the default) or reference
  int threads = 1;                // --threads N, for run
  std::string code_cache;         // --code-cache DIR; "": the XDG cache
  bool no_code_cache = false;     // --no-code-cache
  std::string precision = "f32";  // --precision f32|tf32|bf16, a GPU's contractions
  bool deterministic = false;     // --deterministic: a GPU's atomic sums in index order
  std::string numerics = "fast";  // --numerics fast|portable: the CPU's bits on every CPU
  std::string files_root;         // --files-root DIR: the only folder load/save may touch
  bool read_only = false;         // --read-only: no `save`
  bool strict_sinks = false;      // --strict-sinks: an unbound sink is E1705
  std::int64_t time_limit_ms = 0;   // --time-limit MS: 0, none
  std::int64_t memory_limit = 0;    // --memory-limit BYTES: 0, none
  std::string inputs, outputs;      // --inputs/--outputs FILE.safetensors, for run of a .onnx
  std::vector<std::string> frozen;  // --frozen NAME: an ONNX initializer kept constant
};

// The code cache `run` uses: --code-cache, else the XDG cache; none with
// --no-code-cache.
CodeCache code_cache(const Options& options);

int run_check(const std::vector<std::string>& files, const Options& options);
int run_explain(const std::string& code);
int run_run(const std::vector<std::string>& words, const Options& options);
int run_build(const std::vector<std::string>& words, const Options& options);
int run_import(const std::vector<std::string>& words, const Options& options);
// `run model.onnx`: forward on the tensors of --inputs, its results to --outputs.
int run_onnx(const std::string& path, const Options& options);
int run_devices(const std::vector<std::string>& devices, const Options& options);

// Prints "error: MESSAGE" and the hint to see --help; returns kUsage.
int usage_error(const std::string& message);

}  // namespace ss::cli
