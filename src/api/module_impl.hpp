// What a Module holds: the checked program and the lowered one (its
// graphs and its controller functions' compact form).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "api/call_trace.hpp"
#include "api/compiled.hpp"
#include "api/frames.hpp"
#include "api/value_state.hpp"
#include "diag/codes.hpp"
#include "ir/program.hpp"
#include "runtime/controller/controller.hpp"
#include "runtime/core/host_arguments.hpp"
#include "runtime/core/loop_workers.hpp"
#include "runtime/core/tensor.hpp"
#include "runtime/devices/workers.hpp"
#include "shapescript/engine.hpp"
#include "shapescript/module.hpp"
#include "support/log.hpp"

namespace ss {
namespace api {

// A call that failed with `d` alone: no values, no outputs.
inline CallResult failed_call(Diagnostic d) {
  CallResult r;
  r.diagnostics.push_back(std::move(d));
  return r;
}
inline CallResult failed_call(diag::Code code, std::string message, std::string help = {}) {
  return failed_call(diag::error(code, std::move(message), std::move(help)));
}

}  // namespace api

struct Module::Impl {
  // What stays with a module across reloads: reloads one at a time, and
  // the values its programs made, loaded or returned that are still alive
  // (a reload checks them against the new program).
  struct Lineage {
    std::mutex reloading;
    std::mutex values_mutex;
    std::vector<std::weak_ptr<Value::State>> live_values;
  };
  std::shared_ptr<Lineage> lineage = std::make_shared<Lineage>();
  // This program among every module's programs: a value's version records
  // the program whose layout it fits by it (an address could be reused).
  const std::uint64_t serial = next_serial();
  static std::uint64_t next_serial() {
    static std::atomic<std::uint64_t> last{0};
    return ++last;
  }
  // What a default or moved-from Module answers with: no program.
  static const std::shared_ptr<Impl>& empty() {
    static const auto none = std::make_shared<Impl>();
    return none;
  }

  std::unique_ptr<api::Compiled> compiled;
  mutable std::mutex mutex;  // guards the caches: a module may be called from several threads
  ir::Program program;       // lowered at load (api/prepare)
  // Each device function as a call finds it: its graph and the inputs it takes.
  struct Callable {
    const ir::Graph* graph = nullptr;
    runtime::WantedInputs inputs;
    // Per parameter, a model's or record's tensors as the graph names its
    // inputs: (path, input), ("w1", "m.w1").
    std::vector<std::vector<std::pair<std::string, std::string>>> fields;
    // The generic axes it averages over (ir/averaged_axes): an input that
    // gives one of them size 0 is E1613, before anything runs.
    std::set<std::string> averaged;
    // Per graph input (graph->inputs' order), where a call with values
    // finds it; `framed` when every one has a source, so such calls run
    // in frames (api/frames.hpp), kept in `frames`.
    std::vector<api::InputSource> sources;
    bool framed = false;
    bool whole = false;  // its executor runs whole graphs (runs_whole_graphs)
    std::shared_ptr<api::FrameCache> frames = std::make_shared<api::FrameCache>();
  };
  std::map<std::string, Callable> callable;   // by name, made at load
  std::map<std::string, SinkCallback> sinks;  // bound at load
  // Loaded by Engine::run_file, whose arguments come as a command line's
  // `--arg NAME=VALUE`: the help of E1603 and E1605 says so.
  bool command_line = false;
  // What runs its device functions, for messages: "the fast executor".
  std::string executor_name = "the reference runtime";
  mutable std::atomic<std::int64_t> dropout_runs{0};  // `$seed` for calls that don't give one
  // Several devices: the workers (each function's graph as they run it is
  // the program's `distributed`); their stats go to load_options.stats.
  std::shared_ptr<runtime::DeviceGroup> devices;
  // EngineOptions::executor's faster executor; null: the reference alone.
  std::shared_ptr<const runtime::GraphExecutor> executor;
  // The engine's workers (set before bind): the executor's split loops,
  // and call_async's calls.
  std::shared_ptr<runtime::LoopWorkers> workers;
  // The engine's trace (EngineOptions::trace); null: nothing is measured.
  std::shared_ptr<const api::TraceSink> trace;
  // What a trace says ran a call of `function`: "controller" for a
  // controller function, else its device functions' executor: "fast",
  // "reference", "cuda" or "devices" (several).
  std::string_view runs_on(const std::string& function) const;
  std::string_view graphs_run_on() const;
  CodeCache code_cache;  // the engine's, for the controller's compiled code
  // Each controller function's compiled code, made at load (null:
  // interpreted); empty without the JIT.
  runtime::CompiledController controller_code;
  // What the host's load gave (host functions, files, limits, print,
  // progress, stats), and the folder of the program's file, where the
  // controller's relative paths start.
  LoadOptions load_options;
  std::string base_dir;
  // The program came from the file at `path`: base_dir is its folder.
  void set_file(const std::string& path) {
    if (const auto slash = path.rfind('/'); slash != std::string::npos)
      base_dir = path.substr(0, slash == 0 ? 1 : slash);
  }
  support::LoggerPtr log;  // the engine's: where print lines go without LoadOptions::print
  // A module that failed before its program was read (`name`: its file).
  static std::shared_ptr<Impl> failed_load(std::string name, Diagnostic d) {
    auto m = std::make_shared<Impl>();
    m->compiled = std::make_unique<api::Compiled>();
    m->compiled->name = std::move(name);
    m->compiled->diagnostics.push_back(std::move(d));
    return m;
  }
  // E1612 for a default or moved-from Module's (no program at all).
  std::optional<Diagnostic> empty_module() const;
  // Remembers a value for hot reload (Lineage::live_values).
  Value keep(Value v) const;
  // A model this module made or loaded, readied for its device functions
  // (runtime/core/executor.hpp's prepare: the fast executor packs each
  // weight a product reads now, not at the first call); returned as given.
  Value ready(Value v) const;
  // The controller's options for one run: the module's devices, executor,
  // JIT, sinks, host functions, files and limits; `print` where its print
  // lines go.
  runtime::RunOptions run_options(std::function<void(std::string_view)> print) const;
  // Controller functions' calls, and whether compiled code ran them.
  mutable std::mutex controller_mutex;
  mutable std::map<std::string, FunctionStats> controller_calls;

  // A call with host tensors only (the named-tensor path) of a device
  // function; the caller has checked the program, the dims and the name.
  CallResult call_tensors(const std::string& function, const ir::Signature& sig,
                          const Callable& prepared, const std::vector<Tensor>& positional,
                          const std::map<std::string, Tensor>& named) const;
  // Runs a device function's graph on `inputs` (dropout's `$seed` added
  // unless given), on the workers when it splits a batch: its outputs, or
  // nullopt with the diagnostic in `r` (an input that doesn't fit worded
  // for where it came from, `source`).
  // E1613 when an input gives a generic axis the function averages over
  // no elements (an empty batch).
  static std::optional<Diagnostic> empty_average(
      const std::string& function, const Callable& prepared,
      const std::map<std::string, runtime::Tensor>& inputs);
  // A frame for `inputs`' shapes (by name), checked as run_device checks
  // them (E1603, E1605, E1613 into `r`; null then), its memory not planned
  // yet (api/call_frames.cpp).
  std::unique_ptr<api::CallFrame> new_frame(const std::string& function, const Callable& c,
                                            const std::map<std::string, runtime::Tensor>& inputs,
                                            CallResult& r) const;
  // Module::reserve: a frame for `function` at `sizes`, planned now.
  std::vector<Diagnostic> reserve(const std::string& function,
                                  const std::map<std::string, std::int64_t>& sizes) const;
  // The diagnostic of a failure inside a device function's run.
  Diagnostic run_failure(const std::string& function, const std::exception& e) const;
  std::optional<std::vector<runtime::Tensor>> run_device(
      const std::string& function, const Callable& prepared,
      std::map<std::string, runtime::Tensor>& inputs, runtime::ArgumentSource source,
      CallResult& r) const;

  // Module::call and call_into: the values path (any function, its
  // parameters in order), or the named-tensor one when only host tensors
  // are given to a device function.
  CallResult call_values(const std::string& function, const std::vector<Arg>& args,
                         const std::map<std::string, Tensor>& named,
                         const std::vector<Tensor>* into) const;

  // What a load gives a program: its dims' sizes, its sinks' callbacks
  // (E1705 for one left unbound).
  void bind(const LoadOptions& options, const EngineOptions& engine);

  // A host's tensor as the runtime's, borrowing its memory. Check it first:
  // `unusable` gives E1603 for one without data or with strides that don't
  // fit its shape.
  static runtime::Tensor to_runtime(const Tensor& t);
  // A parameter that takes a tensor or a number (a tensor, `int` or
  // `float`), not a structure (a model, optimiser, batch or dataset).
  static bool takes_tensor(const types::Type& t) {
    return t.is(types::Type::Kind::tensor) || t.is(types::Type::Kind::integer) ||
           t.is(types::Type::Kind::floating);
  }
  static std::optional<Diagnostic> unusable(const std::string& name, const Tensor& t);
};

}  // namespace ss
