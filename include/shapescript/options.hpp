// The plain option types an Engine and a Module take: the device, the log
// level, the executor and precision, the code cache, the file access of a
// sandboxed program, and what a search for a library or a device found.
// Internal code includes this header alone, not the Engine's or Module's.
#pragma once

#include <cstddef>
#include <cstdint>
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

// What the fast CPU executor promises of its bits (docs/numerics.md). fast:
// the same bits again on the same machine and thread count, its sums in the
// order its vector width, blocking and threads make. portable: the same
// bits on every x86-64 CPU with FMA, whichever kernels it picks (AVX-512,
// AVX2, the scalar path; SHAPESCRIPT_ISA forces one) and for any thread
// count: each sum a chain of fused multiply-adds in an order the program
// and its sizes fix, one float32 implementation of each function, round to
// nearest without flush-to-zero on every thread it computes on. For
// lockstep games and replayed robot logs. The CUDA executor ignores it.
enum class Numerics { fast, portable };

// Accepts fast and portable; nullopt otherwise.
SS_API std::optional<Numerics> parse_numerics(std::string_view text);

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

// A host's job system, given to an Engine (EngineOptions::task_runner) to
// run the library's parallel loops instead of threads of its own.
//
// run(count, task, context) runs task(context, 0) ... task(context, count -
// 1), in any order, on any of the host's threads (the caller's included),
// and returns when all are done. The tasks of one run never wait for each
// other, so running them one after another is correct; a task may itself
// call run (a nested loop). A task never throws. Several threads may call
// run at once (several calls of the host's modules).
//
// post(task, context) runs task(context, 0) later, on some thread of the
// host's, and returns at once: how Module::call_async runs a call. Return
// false to decline (the default): the engine then runs async calls on a
// thread of its own, "ss-async".
//
// Either may throw: the call waiting on it fails with E1614. A run that
// throws must have finished the tasks it started; a post that throws must
// not have kept the task (one it ran before throwing stands).
//
// Several-device workers and MPI, which wait for each other inside
// collectives, keep the library's own threads whatever the runner.
class TaskRunner {
 public:
  using Task = void (*)(void* context, int index);
  virtual ~TaskRunner() = default;
  virtual void run(int count, Task task, void* context) = 0;
  virtual bool post(Task /*task*/, void* /*context*/) { return false; }
};

// One timed span of a call, as EngineOptions::trace receives it: the call
// of a function, or one node of a device function's graph (the nodes of a
// call come before the call itself, and share its `call` number). The
// views are valid during the callback only.
struct TraceEvent {
  enum class Kind { call, node };
  Kind kind = Kind::call;
  std::string_view function;  // the function called
  std::string_view node;      // a node's "%12" (its index in the graph); empty for a call
  std::string_view op;        // a node's operation ("matmul", "binary.add", "loop"); "call"
  // What ran it: a node's "fast" or "reference" (the reference operation,
  // where the fast executor declined); a call's executor ("fast",
  // "reference", "cuda", "devices" for several, "controller").
  std::string_view executor;
  std::int64_t call = 0;    // the call's number in the engine, from 1
  double start_us = 0;      // when it started, in microseconds since the engine was made
  double microseconds = 0;  // how long it took
  // A node's result's bytes (0 for one the executor folded into a later
  // node's kernel, a product's bias say); a call's outputs'.
  std::int64_t bytes = 0;
  std::uint64_t thread = 0;  // the thread that ran it: a small number, from 1
};
// Called on the thread that ran the span; it must not call back into the
// module, and it should be quick: it runs inside the call.
using TraceCallback = std::function<void(const TraceEvent&)>;

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
