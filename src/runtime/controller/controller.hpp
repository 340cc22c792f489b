// Runs a checked program's controller functions: their compact form
// (ir/host.hpp: loops, conditions, prints, f-strings, calls) compiled by
// the JIT where it is present, else interpreted, and each of its graphs run
// by the graph interpreter (with the fast executor, when given).
#pragma once

#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "diag/source_map.hpp"
#include "ir/host.hpp"
#include "ir/program.hpp"
#include "jit/jit_api.h"
#include "runtime/controller/value.hpp"
#include "runtime/core/tensor.hpp"
#include "runtime/devices/workers.hpp"
#include "shapescript/diagnostic.hpp"
#include "shapescript/options.hpp"
#include "support/host_callback.hpp"

namespace ss::runtime {

// What a sink receives from `write(sink, k=v, ...)`: the names and values.
using SinkRecord = std::vector<std::pair<std::string, double>>;
using Sink = std::function<void(const SinkRecord&)>;

// A controller function's control flow compiled (tier 1): `fn` runs while
// `link` is held. fn is null when the JIT can't compile it (it is
// interpreted then), and `error` says why.
struct ControllerCode {
  SsJitHostFn fn = nullptr;
  std::shared_ptr<const void> link;
  std::string error;
};
// Each controller function's code, as a load compiled it.
using CompiledController = std::map<const ir::HostFunction*, ControllerCode>;

struct RunOptions {
  // Receives each line `print` writes, with its newline.
  std::function<void(std::string_view)> print;
  // Where each sink's records go; a sink missing here drops them.
  std::map<std::string, Sink> sinks;
  // After each batch of a loop over batches: how many of how many.
  std::function<void(std::int64_t, std::int64_t)> progress;
  // The folder relative paths of `load` and `save` start from: the
  // program file's (empty: the working directory).
  std::string base_dir;
  // A several-device program's workers; null: one device, the controller's
  // thread runs every graph.
  DeviceGroup* devices = nullptr;
  // The executor every graph runs on (null: the reference interpreter).
  const GraphExecutor* executor = nullptr;
  // Told, after each graph the workers ran, its name (the function it
  // calls) and what each worker did.
  std::function<void(const std::string&, const std::vector<WorkerStats>&)> stats;
  // The LLVM JIT (null: every controller function is interpreted) and where
  // its code is kept. Each controller function is compiled on its first
  // call (tier 1: its control flow as machine code, calling back for each
  // instruction's work); one the JIT can't compile is interpreted.
  const SsJitApi* jit = nullptr;
  CodeCache code_cache;
  // The functions a load compiled already (compile_controller), found
  // here before anything is compiled at a call (null: interpreted).
  const CompiledController* compiled = nullptr;
  // Told each call of a controller function: its name, and whether
  // compiled code ran it.
  std::function<void(const std::string& function, bool compiled)> on_call;
  // Calls the host's function for an `extern fn` with its arguments (the
  // kinds its declaration gives); throws HostFunctionError when it fails.
  std::function<Value(const std::string& name, const std::vector<Value>& args)> call_host;
  // Sandboxing (LoadOptions): the files `load` and `save` may touch, and
  // how long the run may take before it stops at its next loop turn,
  // branch or graph (E1609; zero: no limit).
  FileAccess files;
  std::chrono::milliseconds time_limit{0};
  std::int64_t memory_limit = 0;  // bytes of tensors the run may hold (E1610); 0: none
};

// A host function's failure, in its words: E1608 at the call.
struct HostFunctionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A function's code, found in `cache` when compiled before.
ControllerCode controller_code(const SsJitApi& api, const ir::HostFunction& fn,
                               const CodeCache& cache);

// Every controller function of `program` compiled, as a load does so that
// no call compiles.
CompiledController compile_controller(const SsJitApi& api, const ir::Program& program,
                                      const CodeCache& cache);

// Our own bug, reached at run time, as a diagnostic for the host (never an
// exception across the API).
Diagnostic internal_error(const std::string& what);

// Memory the machine couldn't give (E1611), with how much was asked for
// where the runtime knows it (OutOfMemory).
Diagnostic out_of_memory(const std::bad_alloc& e);

// E1614 for a host's callback that threw (runtime/core/host_callback.hpp).
Diagnostic host_callback_failure(const HostCallbackFailed& e);

// An exception that no coded path caught, at the API's edge: E1614 for a
// host's callback, E1611 for a std::bad_alloc, else our bug (E0001).
Diagnostic unexpected_failure(const std::exception& e);

// A graph's run-time failure in the program (a split that doesn't divide,
// a value outside its Index range) as its coded diagnostic: a split points
// at its pattern, a range at `at`, the expression or call that ran. Nullopt
// for any other exception.
std::optional<Diagnostic> program_failure(const std::exception& e, const diag::SourceMap& map,
                                          diag::Span at);

// Runs the controller `function` (lowered with the rest, once, by the
// pipeline: lower/pipeline.hpp) to the end, its parameters bound by name
// from `args` (a number's as a scalar tensor). Returns the run-time errors,
// coded and pointing at the source; empty on success. A function that
// returns a value has it printed.
std::vector<Diagnostic> run_function(const ir::Program& program, const diag::SourceMap& map,
                                     const std::string& function,
                                     const std::map<std::string, Tensor>& args,
                                     const RunOptions& options);

// What a host's call of a controller function with values gave: its result
// (none for a function without one), each parameter's value as it returned
// (a `mut` argument's new contents), or the run-time errors.
struct FunctionCall {
  Value result;
  std::vector<Value> finals;
  std::vector<Diagnostic> errors;
};

// Runs the controller `function` with `args`, one per parameter in order,
// already checked against its signature by the caller (api/value_call).
FunctionCall call_function(const ir::Program& program, const diag::SourceMap& map,
                           const std::string& function, std::vector<Value> args,
                           const RunOptions& options);

}  // namespace ss::runtime
