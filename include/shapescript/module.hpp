// A loaded program: checked once, its device functions prepared (lowered)
// at load and kept, so calls at any batch size prepare nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "shapescript/diagnostic.hpp"
#include "shapescript/export.hpp"
#include "shapescript/host_function.hpp"
#include "shapescript/options.hpp"
#include "shapescript/tensor.hpp"
#include "shapescript/value.hpp"

namespace ss {

class MpiWorld;  // shapescript/mpi.hpp

// Sizes for the program's dims declared without one (`dim V`); the CLI's
// `--dim V=32000`. Naming an unknown dim is E0405, resizing a dim the
// program sizes E0406; running with a dim still unsized is E0404.
//
// Sinks: each `sink NAME` the program declares is bound to a callback that
// receives what `write(NAME, k=v, ...)` sends, the names and values in
// order. A sink left unbound is E1705 at load.
using SinkRecord = std::vector<std::pair<std::string, double>>;
using SinkCallback = std::function<void(const SinkRecord&)>;

// Several devices (`devices cpu[0 1 2]`): what one worker did, in one call
// or in a run's calls of one function.
struct WorkerStats {
  std::string device;  // "cpu[1]"
  int rank = 0;        // in the world (every process's workers)
  std::int64_t calls = 0;
  std::int64_t examples = 0;        // its parts of the batches
  std::int64_t all_reduces = 0;     // collectives it issued
  std::int64_t reduced_values = 0;  // elements those all-reduces summed
  double collective_seconds = 0;    // in them, waiting for the others included
};

// What ran a module's device functions, over its calls so far (`run
// --stats`): the executor, and per path the graph nodes it ran: "gemm"
// (matmul and einsum), "fused" (inside JIT-compiled kernels, with the
// reductions fused after them), "loops" (other elementwise work),
// "reductions" (max_pool and its gradient among them), "moves" (copies and
// views), "created" (constants, fills, ranges), "attention" (attention and
// its gradient, each one kernel: language.md's Attention), "runtime"
// (inputs' sizes and all-reduces, which compute
// nothing), and "reference OP" for each operation left to the reference
// runtime. Empty `nodes` on the reference executor, which runs everything.
// What ran one function (ExecutorStats::functions). A device function (or
// a controller's expression, "expression in main"): "fast" or "reference",
// its calls, its fused kernels and, on the fast executor, its nodes by
// path. A controller function: "compiled" (tier 1, by the LLVM JIT) or
// "interpreted", and its calls.
struct FunctionStats {
  std::string kind;        // "device" or "controller"
  std::string executor;    // "fast", "reference", "compiled" or "interpreted"
  std::int64_t calls = 0;  // a device function's: runs of its graph, one per worker
  std::int64_t fused_kernels = 0;
  std::map<std::string, std::int64_t> nodes;
};

struct ExecutorStats {
  std::string executor;  // "fast", "reference", "cuda" or "cuda (cuBLAS)"
  bool jit = false;      // the LLVM JIT module was loaded
  std::int64_t kernels_compiled = 0, kernel_runs = 0;
  // Kernels found compiled: earlier in this process (another module of the
  // same program, say), or in the engine's CodeCache.
  std::int64_t kernels_from_memory = 0, kernels_from_cache = 0;
  // Graphs the executor planned (fused, compiled) when the module loaded,
  // and graphs a call had to plan: none, but for graphs a load can't
  // foresee.
  std::int64_t plans_at_load = 0, plans_at_call = 0;
  // Code the JIT couldn't compile or link, which ran without it: a graph's
  // kernels (node by node) or a controller function (interpreted). Results
  // are the same; only speed differs. The last failure's words.
  std::int64_t jit_failures = 0;
  std::string jit_error;
  std::map<std::string, std::int64_t> nodes;
  // Per function, by name: what ran it. Device functions appear here on
  // the fast executor; controller functions once a run called them.
  std::map<std::string, FunctionStats> functions;
};

// A run's call of a function on the workers (LoadOptions::stats).
struct CallStats {
  std::string function;  // the device function the controller called
  std::vector<WorkerStats> workers;
};

// A host's own collectives (MPI, Gloo, its own NCCL setup...) for a
// several-device program: the world's size, each local device's rank (in
// the order the `devices` line names them), and the operations, each
// called from the worker thread of `local` and returning 0 on success
// (anything else is E1806). all_reduce sums in place, and every rank must get
// the same bits, or replicas drift (an internal error says so). `abort` must
// wake every worker waiting in a collective. Calls of different local
// workers overlap; the table must allow it.
struct CollectiveTable {
  void* context = nullptr;
  int world = 1;
  std::vector<int> ranks;
  int (*all_reduce_f32)(void* context, int local, float* data, std::size_t count) = nullptr;
  int (*all_reduce_i32)(void* context, int local, std::int32_t* data, std::size_t count) = nullptr;
  int (*broadcast)(void* context, int local, void* data, std::size_t bytes, int root) = nullptr;
  int (*barrier)(void* context, int local) = nullptr;
  void (*abort)(void* context) = nullptr;
};

struct LoadOptions {
  std::map<std::string, std::int64_t> dims;
  // Each sink's destination, by name. A sink the program declares and this
  // leaves unbound (or bound to null) goes to `unbound_sink`; its records
  // are dropped where that is null too.
  std::map<std::string, SinkCallback> sinks;
  // Told each record of a sink that `sinks` leaves unbound, with its name
  // (the CLI counts them and shows the last). Null: they are dropped.
  std::function<void(const std::string& sink, const SinkRecord&)> unbound_sink;
  // True: a declared sink that `sinks` leaves unbound is E1705 at load, for
  // a host that must keep every record.
  bool strict_sinks = false;
  // Told how far a loop over a dataset's batches has got (done of total),
  // after each batch: the CLI draws a progress bar with it on a terminal.
  std::function<void(std::int64_t done, std::int64_t total)> progress;
  // Several devices: after each call the workers ran, from a controller
  // function or Module::call, what each worker did (`run --stats`).
  std::function<void(const CallStats&)> stats;
  // How long a worker waits for the others in a collective before the call
  // fails with E1806 (a worker stuck or a device lost, never a hang).
  std::chrono::milliseconds collective_timeout{120000};
  // Where a controller function's `print` lines go (each with its
  // newline), when the host calls one (Module::call). Null: the engine's
  // log callback, at info.
  std::function<void(std::string_view)> print;
  // A host's collectives instead of the library's own (E1806 when its ranks
  // don't match the `devices` line).
  std::shared_ptr<const CollectiveTable> collectives;
  // Told, when Engine::run_file ends, what ran the program's device
  // functions (Module::executor_stats for a module a host keeps).
  std::function<void(const ExecutorStats&)> executor_stats;
  // `cuda[...]` devices: the host's own NCCL communicators (`ncclComm_t`),
  // one per device of the `devices` line, in its order, each on its device;
  // their ranks and world are the job's (a multi-node job set up by the
  // host). The host keeps them and destroys them after the Module; after
  // an E1806 they have been aborted (ncclCommAbort) and can't be used again.
  // Empty: the library makes communicators for the local devices.
  std::vector<void*> nccl_communicators;
  // Several processes on MPI (shapescript/mpi.hpp): this process runs the
  // `devices` line's devices (or the one device), the world is every
  // process's, ranks in process order. Every process loads the same program
  // with the same sizes (E1810 at load otherwise), and its modules in the
  // same order. For `cuda[...]` the library makes the NCCL communicators
  // across the processes itself. Not with `collectives` or
  // `nccl_communicators` (E1806).
  std::shared_ptr<const MpiWorld> mpi;
  // What each `extern fn` of the program does, by its name (E1606 at load
  // for one left unbound, E1607 for one whose parameters or result don't
  // fit). A binding the program doesn't declare is never called.
  std::map<std::string, HostFunction> host_functions;
  // Sandboxing: the files the program may touch, how long one run
  // (Engine::run_file) may take before it stops with E1609 (zero: no
  // limit), and how much memory it may hold.
  FileAccess files;
  std::chrono::milliseconds time_limit{0};
  // How much tensor memory one run (Engine::run_file, or one Module::call)
  // may hold at once, in bytes, counting what the controller's thread and
  // its graphs allocate; past it the run stops with E1610 (zero: no limit).
  std::int64_t memory_limit = 0;
};

struct SS_API CallResult {
  // A call with tensors only (the named-tensor path): one per returned
  // value (a tuple gives several; a model, one per parameter), then the
  // new value of each tensor of a `mut` parameter the function changed,
  // named in `updated` ("m.w1", "opt.step"), copied out for the host.
  std::vector<Tensor> outputs;
  std::vector<std::string> updated;
  // What the function returned, as values the library owns: one, or a
  // tuple's items; none for a function without a result, for a call with
  // host tensors only (its results are `outputs`), or for call_into.
  std::vector<Value> values;
  // Several devices: what each worker did in this call.
  std::vector<WorkerStats> workers;
  std::vector<Diagnostic> diagnostics;
  explicit operator bool() const { return !has_errors(diagnostics); }
  // The i-th output, or else the i-th value's tensor.
  Tensor tensor(std::size_t i = 0) const {
    return i < outputs.size() ? outputs[i] : values.at(i).tensor();
  }
  const Value& value(std::size_t i = 0) const { return values.at(i); }
};

// What Module::reload did: the state entries it kept and those it dropped
// (with why), or, when the new source has errors, those errors and nothing
// changed.
struct ReloadReport {
  std::vector<std::string> kept;
  std::vector<std::pair<std::string, std::string>> dropped;  // name, why
  // The module's live values: those the new program takes as they are,
  // and those it doesn't (with why).
  std::vector<Value> kept_values;
  std::vector<std::pair<Value, std::string>> dropped_values;
  std::vector<Diagnostic> diagnostics;
  explicit operator bool() const { return !has_errors(diagnostics); }
};

class Engine;

class SS_API Module {
 public:
  Module();
  ~Module();
  Module(Module&&) noexcept;
  Module& operator=(Module&&) noexcept;

  // False when the program had errors; diagnostics() has them. A default
  // or moved-from Module is empty: false, with no diagnostics, and every
  // call on it is E1612.
  explicit operator bool() const;
  // Valid until the module is reloaded, moved or destroyed (a reload
  // replaces the program they belong to: don't read them meanwhile).
  const std::vector<Diagnostic>& diagnostics() const;

  // Calls a function: a device function or a controller one (`fit`,
  // `predict`, a `main` with parameters).
  //
  // With values among the arguments, or for a controller function, the
  // arguments are the parameters, in order: a model, optimiser, batch or
  // dataset parameter takes a Value of that type; a tensor parameter a
  // tensor Value or a host Tensor; a number one a number. A `mut`
  // parameter takes `ss::mut(v)`, and v has a new version when the call
  // ends; two `mut` calls on one value run one after the other, while
  // calls that only read it go on with the version they started with. The
  // results are `values`.
  //
  // With host tensors only (the named-tensor path), tensor parameters take
  // the positional arguments in order, and a model's parameters and a
  // record's fields are named: {"m.w1", w1}, {"batch.pixels", x} (a named
  // tensor parameter works too: {"x", x}); the results are copied into
  // `outputs` as well.
  //
  // A missing argument is E1605, one of the wrong shape, type or element
  // type E1603, an unknown function E1604; the host never sees an
  // exception or a crash. Any thread may call; see docs/embedding.md.
  CallResult call(const std::string& function, const std::vector<Arg>& args,
                  const std::map<std::string, Tensor>& named = {}) const;
  // The same, for a host's own vector of tensors.
  template <typename T>
  requires std::is_same_v<T, Tensor> CallResult
  call(const std::string& function, const std::vector<T>& positional,
       const std::map<std::string, Tensor>& named = {})
  const { return call(function, std::vector<Arg>(positional.begin(), positional.end()), named); }
  // A device function's results written into the host's buffers, one per
  // returned tensor (a tuple's items in order), each a Tensor::view of
  // writable memory of the result's shape and element type (E1603 when it
  // isn't). `values` stays empty: a steady-state call this way takes no
  // memory for its results.
  CallResult call_into(const std::string& function, const std::vector<Arg>& args,
                       const std::vector<Tensor>& outputs) const;
  // The call run later, on the engine's task runner (its post) or else on
  // the engine's "ss-async" thread, one call after another there: a future
  // of its result, or `done` called with it on that thread. It runs the
  // program current when call_async was called; the arguments are held
  // (values by handle, host tensors as views: keep their memory until the
  // call completes). Calls with `mut` values queued this way run in the
  // order they were queued.
  std::future<CallResult> call_async(const std::string& function, std::vector<Arg> args) const;
  void call_async(const std::string& function, std::vector<Arg> args,
                  std::function<void(CallResult)> done) const;
  // A frame for a device function at these sizes of its generic axes
  // ({{"b", 64}}), made now rather than by the first call at them: the
  // function runs once on zeros and its memory is planned and kept, so
  // that first call allocates nothing either. A function keeps four frames
  // (the least recently used dropped); sizes never cause a recompile.
  // E1604 for a function that isn't a device function; E1605 for a
  // generic axis given no size, a negative size, or a size for an axis
  // the function's inputs lack (each named); E1611 for inputs larger than
  // the machine's memory (every product of sizes is checked). Where calls
  // don't run in frames (the reference executor, several devices, a
  // memory limit) it checks the sizes and makes nothing.
  std::vector<Diagnostic> reserve(const std::string& function,
                                  const std::map<std::string, std::int64_t>& sizes) const;

  // Values. `type` names a model of the program ("Mlp"); an optimiser is
  // made for a model value with its settings (PyTorch's defaults for the
  // rest), as `AdamW(m, lr=1e-3)` does in the language. A batch is a
  // record's fields for several examples (`[b] Digit`), a dataset its
  // fields for every example (a replay buffer), one host tensor per field
  // with the examples on the leading axis; the tensors are copied once.
  // Failures come back as an empty value with the diagnostics in *errors
  // (when given): E1604 for a type the program doesn't have, E1603 for
  // tensors that don't fit it.
  Value make(const std::string& type, const MakeOptions& options = {},
             std::vector<Diagnostic>* errors = nullptr) const;
  Value make_optimizer(const std::string& kind, const Value& model,
                       const std::map<std::string, double>& settings = {},
                       std::vector<Diagnostic>* errors = nullptr) const;
  Value tensor(const Tensor& t, std::vector<Diagnostic>* errors = nullptr) const;
  Value batch(const std::string& record, const std::map<std::string, Tensor>& fields,
              std::vector<Diagnostic>* errors = nullptr) const;
  Value dataset(const std::string& record, const std::map<std::string, Tensor>& fields,
                std::vector<Diagnostic>* errors = nullptr) const;
  // An independent value with the same contents (version 1).
  Value copy(const Value& v) const;
  // A model ("Mlp") or an optimiser ("AdamW[Mlp]") from safetensors: a
  // file (read through LoadOptions::files) or its bytes. Every parameter
  // must be there at its shape, and nothing else (E1704).
  Value load(const std::string& type, const std::string& path, const ValueLoadOptions& options = {},
             std::vector<Diagnostic>* errors = nullptr) const;
  Value load_bytes(const std::string& type, std::string_view bytes,
                   const ValueLoadOptions& options = {},
                   std::vector<Diagnostic>* errors = nullptr) const;
  // A model's or optimiser's current version in safetensors, to a file
  // (through LoadOptions::files, written atomically) or as bytes.
  std::vector<Diagnostic> save(const Value& v, const std::string& path) const;
  std::vector<Diagnostic> save_bytes(const Value& v, std::string* bytes) const;

  // Hot reload: loads `text` (as Engine::load_source with `options`) and,
  // when it has no errors, makes it this module's program. Otherwise the
  // module is untouched and keeps running the old program, and the report
  // has the errors. The values this module made or loaded that are still
  // alive are checked against the new program: one whose type the new
  // program still has with the same layout (parameter names, shapes and
  // element types; a record's fields) is kept, and calls take it as
  // before; any other is reported dropped, with why (calls with it are
  // E1603 from then on). `state`, when given, is the host's named tensors
  // for its calls ("m.w1", "opt.exp_avg.w1"). An entry stays when some device
  // function of the new program takes an input of that name with that
  // shape and element type (a generic axis takes any size). Any other
  // entry is removed, and the report says why. Calls may run on other
  // threads meanwhile: each finishes on the program it started with, and
  // calls that start after the reload returns run the new one. Two reloads
  // of one module run one after the other. (`state` is the caller's: no
  // other thread may use that map meanwhile.)
  ReloadReport reload(const Engine& engine, std::string_view text, std::string_view name,
                      const LoadOptions& options = {},
                      std::map<std::string, Tensor>* state = nullptr);

  // How many device functions were prepared (lowered) at load.
  std::size_t prepared() const;
  // What ran its device functions so far.
  ExecutorStats executor_stats() const;

  struct Impl;

 private:
  friend class Engine;
  friend class Batcher;  // checks each request against the function's signature
  explicit Module(std::shared_ptr<Impl> impl);
  // The program now, which a call holds to its end; an empty one for a
  // default or moved-from Module.
  std::shared_ptr<const Impl> current() const;
  // impl_ as it is now (null when empty), and replacing it whole.
  std::shared_ptr<Impl> held() const;
  void publish(std::shared_ptr<Impl> next);
  // Guards the pointer impl_ (a copy or a swap), never what it points to.
  // (std::atomic<std::shared_ptr> would do, but GCC 12's is opaque to
  // ThreadSanitizer.)
  mutable std::mutex impl_mutex_;
  std::shared_ptr<Impl> impl_;  // replaced whole by reload, read by calls on any thread
};

}  // namespace ss
