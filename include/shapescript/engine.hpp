// The Engine: everything the library does hangs off one. It owns the logger,
// the device it runs on and the optional back ends (the LLVM JIT module, the
// CUDA driver, NVRTC, cuBLAS, NCCL), each found at run time so that a machine
// without LLVM or a GPU still loads and runs the library.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shapescript/diagnostic.hpp"
#include "shapescript/export.hpp"
#include "shapescript/module.hpp"
#include "shapescript/onnx.hpp"
#include "shapescript/options.hpp"

namespace ss {

struct EngineOptions {
  // The device asked for. A CUDA device that can't be used leaves the engine
  // not ok() with an E19xx diagnostic; the engine never aborts the host.
  Device device = Device::cpu();
  // Unset: the SHAPESCRIPT_LOG environment variable, else off (the library is
  // quiet unless asked).
  std::optional<LogLevel> log_level;
  // Unset: messages go to standard error (only when the level lets any through).
  LogCallback log_callback;
  // Paths of the optional libraries. Empty: the environment variable named
  // here, else the library's default search.
  std::string jit_library;          // SHAPESCRIPT_JIT; default: beside libshapescript
  std::string cuda_driver_library;  // SHAPESCRIPT_CUDA_DRIVER; default: libcuda.so.1
  std::string nvrtc_library;        // SHAPESCRIPT_NVRTC; default: libnvrtc.so.13, .12, ...
  // SHAPESCRIPT_NCCL; default: the host's loaded copy, else libnccl.so.2.
  std::string nccl_library;
  Executor executor = Executor::fast;
  int threads = 1;                       // the fast executor's threads for a large contraction
  Precision precision = Precision::f32;  // contractions' inputs (see Precision)
  // The fast CPU executor's bits: the same on every x86-64 CPU with
  // `portable` (see Numerics; docs/numerics.md).
  Numerics numerics = Numerics::fast;
  // On CUDA, sums whose order atomics decide (scatter_add: an embedding's
  // gradient) in index order instead, so every run repeats its bits
  // (docs/numerics.md); slower where many ids share a row.
  bool deterministic = false;
  // Unset (the default): compiled code is kept in memory only.
  CodeCache code_cache;
  // Where the parallel loops (a product, a convolution or an elementwise
  // loop split `threads` ways) run. Unset: on the engine's own workers,
  // threads named ss-worker-1, 2, ... started when a loop first needs them
  // and joined when the engine and every module it loaded are gone. Set:
  // on the host's job system (TaskRunner), and the library starts no
  // thread for them. docs/embedding.md, Threads.
  std::shared_ptr<TaskRunner> task_runner;
  // How long an idle worker, and a caller waiting for the workers, polls
  // before it sleeps: a short spin saves the wake-up between a training
  // step's products, but burns a core the host may want. Zero: no spinning.
  std::chrono::microseconds spin{50};
  // Told each call's timing and each of its nodes' (TraceEvent); unset,
  // nothing is measured.
  TraceCallback trace;
};

struct BackendReport {
  // The CPU's GEMM kernel ("avx512", "avx2", "portable"), whether its
  // contractions can take bfloat16 inputs (Precision::bf16), and the kernel
  // that runs them: "amx" (AMX-BF16 tiles), "avx512bf16" (AVX512-BF16), or
  // "" where there is none and bf16 runs float32.
  std::string cpu_gemm;
  bool cpu_bf16 = false;
  std::string cpu_bf16_kernel;
  LibraryStatus onednn;  // libdnnl: the CPU's convolutions (detail: its kernel)
  LibraryStatus jit;     // libshapescript_jit, the LLVM ORC module
  LibraryStatus cuda_driver;
  LibraryStatus nvrtc;
  LibraryStatus cublas;
  LibraryStatus cudnn;  // the CUDA executor's convolutions, where cuBLAS is too
  LibraryStatus nccl;
  // libshapescript_mpi, the MPI adapter (version: the MPI library's), for
  // several processes; finding it starts no MPI.
  LibraryStatus mpi;
  // libshapescript_onnx, the ONNX importer (version: ONNX's and protobuf's).
  LibraryStatus onnx;
  std::vector<CudaDeviceInfo> cuda_devices;
};

// What an engine counts across its modules.
struct EngineStats {
  // The host's callbacks that threw where no call waited on them (the done
  // callbacks of call_async and Batcher::submit, the log callback): each
  // caught, counted here, and reported to the log callback (but its own).
  std::int64_t unwaited_callback_throws = 0;
};

class SS_API Engine {
 public:
  explicit Engine(EngineOptions options = {});
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // False when the device asked for can't be used; diagnostics() says why.
  bool ok() const;
  const std::vector<Diagnostic>& diagnostics() const;
  const Device& device() const;
  EngineStats stats() const;

  // Looks for every optional back end and lists the CUDA devices. Each call
  // searches afresh; nothing here changes the engine.
  BackendReport backends() const;

  // Checks a program and prepares its device functions, as a load would
  // (so what lowering finds, E1205 say, is found here too). Returns its
  // diagnostics; has_errors() tells whether it was rejected. A missing or
  // unreadable file is E0101, text that isn't UTF-8 is E0102, a file over
  // the size limit is E0103.
  std::vector<Diagnostic> check_file(const std::string& path) const;
  std::vector<Diagnostic> check_source(std::string_view text, std::string_view name) const;

  // A program's lowered code as text after one pass of the pipeline (the
  // CLI's `check --dump-ir=PASS`): after "lower" and "verify" every
  // function's (device functions' graphs, controller functions' compact
  // form, a line for one that didn't lower), after "distribute" the graphs
  // as several devices' workers run them, after "fuse" the fast executor's
  // kernels, after "plan" when each value is dropped. When the program has
  // errors, the listing is empty and *diagnostics receives them; a pass not
  // in ir_passes() gives an empty listing.
  std::string ir_listing(const std::string& path, std::vector<Diagnostic>* diagnostics,
                         std::string_view pass = "lower") const;
  static std::vector<std::string> ir_passes();  // in order: lower, verify, distribute, fuse, plan

  // Loads a program: reads (from a file), checks and keeps it. The module
  // is false when the program has errors, with the diagnostics.
  Module load_file(const std::string& path, const LoadOptions& options = {}) const;
  Module load_source(std::string_view text, std::string_view name,
                     const LoadOptions& options = {}) const;

  // `shapescript build --standalone`: one self-contained C++17 source with
  // no dependency on the library, written to `output`: a tiny runtime, then
  // a function per device function (docs/language.md, Building for a
  // device). A program for several devices is refused first (E1805: its
  // controller needs the library's workers), then an output that isn't a
  // C++ file (E1807), then an operation the tiny runtime lacks (E1808).
  // Empty when it wrote the file.
  std::vector<Diagnostic> build_standalone(const std::string& path,
                                           const std::string& output) const;
  // `shapescript build FILE -o model.so`: the program with its compiled
  // code (every device function's kernels and every controller function,
  // compiled now by the JIT module) in a shared object, linked by the
  // system's C compiler (CC, else cc). load_built loads it back and
  // compiles nothing: its code is found in the object (then in the
  // engine's CodeCache). E1809 without the JIT module, when the compiler
  // fails, or for a file that isn't such an object.
  std::vector<Diagnostic> build_shared(const std::string& path, const std::string& output) const;
  Module load_built(const std::string& path, const LoadOptions& options = {}) const;
  // Loads a program and runs one of its functions on the engine's executor
  // (EngineOptions::executor): a controller function without parameters
  // (`main` usually), or a device function given its inputs by name in
  // `args` ({"x", t}), whose results are then printed. Each line printed
  // goes to `print`. Returns the program's errors, from loading or from
  // running; empty when it ran to its end. `path` is a program's source or
  // an object build_shared made (a path ending in .so).
  // ONNX models (onnx.hpp, docs/onnx.md): translated to a program and its
  // weights, then loaded with `options.load`. `folder` is where external
  // data is read from (a file's own folder for load_onnx, or the folder of
  // the file's resolved path: a Hugging Face cache's links). A data file
  // must be a regular file that, links resolved, lies in one of them,
  // holding its tensor's bytes (E2009 otherwise); options.load.files (the
  // host's FileAccess) applies to the model file and its data as to any
  // file a program reads (E1707). A model the
  // importer refuses gives its E20xx diagnostic; a program that doesn't
  // check (shapes that disagree) its checker's, naming the node.
  OnnxTranslation translate_onnx(std::string_view bytes, const std::string& folder,
                                 const OnnxOptions& options = {}) const;
  OnnxModel load_onnx(const std::string& path, const OnnxOptions& options = {}) const;
  OnnxModel load_onnx_bytes(std::string_view bytes, const OnnxOptions& options = {}) const;

  std::vector<Diagnostic> run_file(const std::string& path, const std::string& function,
                                   const std::function<void(std::string_view)>& print,
                                   const std::map<std::string, Tensor>& args = {},
                                   const LoadOptions& options = {}) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The version of the library this program runs with, "MAJOR.MINOR.PATCH".
SS_API const char* version();

}  // namespace ss
