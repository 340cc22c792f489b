// The plain option types an Engine and a Module take: the device, the log
// level, the executor and precision, the code cache, the file access of a
// sandboxed program, and what a search for a library or a device found.
// Internal code includes this header alone, not the Engine's or Module's.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "shapescript/export.hpp"

namespace ss {

// A device a program runs on: the CPU, or one local CUDA device by index.
struct SS_API Device {
  enum class Kind { cpu, cuda };
  Kind kind = Kind::cpu;
  int index = 0;

  static Device cpu() { return {}; }
  static Device cuda(int index) { return {Kind::cuda, index}; }

  // "cpu" or "cuda:N".
  std::string name() const;
  // Accepts "cpu", "cuda" (meaning cuda:0) and "cuda:N"; nullopt otherwise.
  static std::optional<Device> parse(std::string_view text);

  friend bool operator==(const Device&, const Device&) = default;
};

enum class LogLevel { trace, debug, info, warn, error, off };

// Accepts trace, debug, info, warn (or warning), error, off, in any case.
SS_API std::optional<LogLevel> parse_log_level(std::string_view text);

// Receives every log message at or above the engine's level. Called from the
// thread that logged; it must not call back into the engine.
using LogCallback = std::function<void(LogLevel level, std::string_view message)>;

// What runs a program's device functions on the CPU: the fast executor
// (contractions through a packed GEMM, vectorised elementwise loops, the
// rest as the reference), or the reference runtime's plain loops, the
// oracle the fast one is tested against.
enum class Executor { reference, fast };

// How contractions compute: f32 throughout (the default), or with the
// inputs rounded to TF32 or bfloat16, accumulating in float32: a CUDA
// device's on its tensor cores (cuBLAS's compute type); the CPU's bf16 with
// AVX512-BF16 where it has it (tf32, and bf16 elsewhere, are f32 there).
// Results and master weights stay float32 either way.
enum class Precision { f32, tf32, bf16 };

// Accepts f32, tf32 and bf16; nullopt otherwise.
SS_API std::optional<Precision> parse_precision(std::string_view text);

// Where compiled code is kept between processes. An entry's key names what
// was compiled (a hash of the kernels, the CPU and the compiler), and its
// bytes say it again in full, so a stale or clashing entry is never run;
// a second run of the same program compiles nothing. `load` fills *bytes
// and returns true when it has the entry; `store` may fail silently (the
// next run compiles again). Both may be called from several threads at
// once. Compiled code is also kept in memory for the process's life.
struct CodeCache {
  std::function<bool(const std::string& key, std::string* bytes)> load;
  std::function<void(const std::string& key, std::string_view bytes)> store;
};

// A CodeCache in a directory (made, with its parents, on the first store),
// one file per entry, written to a temporary name and renamed into place
// so no reader sees half an entry.
SS_API CodeCache directory_code_cache(std::string directory);

// The files a program's controller touches (`load` of datasets, models
// and optimisers, `save`) go through here, so a host confines them,
// forbids them, or serves them itself (an archive, a virtual file
// system). Scripts from untrusted sources get a root and no writes. A path
// the host doesn't allow is E1707. Engine::load_file and run_file read the
// program's source through it too; the code cache is the host's to give.
struct FileAccess {
  // Reads the whole file into *bytes, or returns false with *why. Null:
  // the real file system.
  std::function<bool(const std::string& path, std::string* bytes, std::string* why)> read;
  // Writes the whole file, or returns false with *why. Null: the real file
  // system, through a temporary renamed into place.
  std::function<bool(const std::string& path, std::string_view bytes, std::string* why)> write;
  // Not empty: every path, once joined to the program's folder and its
  // links resolved, must lie inside this folder.
  std::string root;
  bool allow_read = true;
  bool allow_write = true;
};

// What a run-time search found for one optional library.
struct LibraryStatus {
  bool found = false;
  std::string path;     // the file that was loaded, when found
  std::string version;  // as the library reports it, when found
  std::string detail;   // why it wasn't found, or what it offers
};

struct CudaDeviceInfo {
  int index = 0;
  std::string name;
  std::size_t memory_bytes = 0;
  int compute_major = 0;
  int compute_minor = 0;
};

}  // namespace ss
