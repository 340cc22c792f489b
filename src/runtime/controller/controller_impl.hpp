// The controller's machine, shared by the files that define its parts:
// controller_run.cpp runs functions (compiled by the JIT, else
// interpreted) and calls the host's; controller_steps.cpp is each
// instruction's work; controller_graphs.cpp runs tensor expressions' graphs
// (on the workers where a batch splits) and `map`; controller_training.cpp
// models, optimisers, files, sinks and datasets. controller.cpp holds the
// entry points (run_function), the error mapping and argument binding.
#pragma once

#include <cmath>
#include <exception>
#include <map>
#include <optional>

#include "diag/codes.hpp"
#include "ir/distribute.hpp"
#include "runtime/controller/controller.hpp"
#include "runtime/controller/controller_ops.hpp"
#include "runtime/controller/value.hpp"
#include "runtime/core/device_error.hpp"
#include "runtime/core/format.hpp"
#include "runtime/core/out_of_memory.hpp"
#include "runtime/data/data_error.hpp"
#include "runtime/fast/compiled_code.hpp"
#include "runtime/reference/interpreter.hpp"
#include "runtime/reference/ops.hpp"
#include "support/scalar_arith.hpp"

namespace ss::runtime::control {

// A run-time failure, already a diagnostic.
struct Failure {
  Diagnostic diagnostic;
};

// A graph's output as the value the checker typed it.
Value from_output(const Tensor& t, ir::HostKind kind);

class Controller {
  using HostInstr = ir::HostInstr;
  using HostKind = ir::HostKind;
  using HostOp = ir::HostOp;

 public:
  Controller(const ir::Program& p, const diag::SourceMap& map, const RunOptions& options)
      : p_(p),
        code_(p.controller),
        map_(map),
        options_(options),
        deadline_(options.time_limit.count() > 0
                      ? std::chrono::steady_clock::now() + options.time_limit
                      : std::chrono::steady_clock::time_point::max()) {}

  // Runs a controller function; `finals`, when given, gets its parameters'
  // values as it returned (for `mut` arguments).
  Value call(const std::string& name, std::vector<Value> args, diag::Span at,
             std::vector<Value>* finals = nullptr);

 private:
  // On several processes, print, save and write happen on the one that
  // holds rank 0; the others compute alike and stay quiet.
  bool holds_rank_zero() const {
    if (!options_.devices) return true;
    auto& c = options_.devices->collectives();
    for (int local = 0; local < c.local_count(); ++local)
      if (c.rank(local) == 0) return true;
    return false;
  }

  // Several processes each read a dataset, a model or an optimiser from
  // their own file system: they must have read the same, or each would take
  // its part of another global batch, or the replicas would differ (E1810,
  // on every process).
  void check_same_load(const Value& v, const std::string& path, diag::Span at);

  [[noreturn]] void fail(diag::Code code, diag::Span at, std::string message, std::string label,
                         std::string help = {}) {
    Diagnostic d = diag::error(code, std::move(message), std::move(help));
    d.labels.push_back(map_.label(at, std::move(label), true));
    d.location = d.labels.back().start;
    throw Failure{std::move(d)};
  }

  // What the reference runtime can't run yet: an error without a code.
  // E1609 once the run is past the host's time limit.
  void check_deadline(diag::Span at) const {
    if (std::chrono::steady_clock::now() <= deadline_) return;
    Diagnostic d = diag::error(
        diag::Code::E1609,
        "the run went past the host's time limit of " +
            std::to_string(options_.time_limit.count()) + " ms",
        "the host limits how long a program may run (LoadOptions::time_limit, --time-limit): "
        "do less work per run, or ask the host for more time");
    d.labels.push_back(map_.label(at, "stopped here", true));
    d.location = d.labels.back().start;
    throw Failure{std::move(d)};
  }

  // An `extern fn`: the host's function, its result checked against the
  // declaration (E1608 for a failure or a result that doesn't fit).
  Value call_host(const std::string& name, const ir::Signature& fn, const std::vector<Value>& args,
                  diag::Span at);

  // What the checker accepted and the controller can't run: shapescript's
  // bug, not the program's (a load reports what lowering finds first).
  [[noreturn]] void unsupported(const std::string& what, diag::Span at) {
    Diagnostic d = internal_error("the controller can't run " + what);
    d.labels.push_back(map_.label(at, "here", true));
    d.location = d.labels.back().start;
    throw Failure{std::move(d)};
  }

  // Runs a function: compiled (tier 1) when the JIT is there and compiles
  // it, else interpreted; the two share every instruction's work below.
  Value run(const ir::HostFunction& fn, std::vector<Value>& slots);

  Value interpret(const ir::HostFunction& fn, std::vector<Value>& slots);

  // A function's control flow as the JIT's steps: branches and loops ask
  // test(), jumps are the code's own, everything else is exec().
  SsJitHostFn compiled_function(const ir::HostFunction& fn);

  // What compiled code works on: the function's slots, and what failed (a
  // callback catches every exception, so none unwinds through generated
  // code) or what it returned.
  struct Frame {
    Controller* self;
    const ir::HostFunction* fn;
    std::vector<Value>* slots;
    std::exception_ptr failure;
    Value returned;
  };

  static std::int32_t exec_step(void* frame, std::int32_t pc) noexcept;

  static std::int32_t test_step(void* frame, std::int32_t pc) noexcept;

  Value run_compiled(const ir::HostFunction& fn, std::vector<Value>& slots, SsJitHostFn code);

  // A variable read before any binding of it ran is the program's error.
  void check_reads(const ir::HostFunction& fn, const std::vector<Value>& slots,
                   const HostInstr& in);

  // A branch's condition, or whether a loop goes round again (binding its
  // variable and counting) rather than ending.
  bool test(const ir::HostFunction& fn, std::vector<Value>& slots, std::size_t pc);

  // Every other instruction's work; `ret` puts the function's result in
  // *returned.
  void exec(const ir::HostFunction& fn, std::vector<Value>& slots, std::size_t pc, Value* returned);

  static Value constant(const HostInstr& in);

  Value arithmetic(const HostInstr& in, const std::vector<Value>& slots);

  Value checked(const support::ArithResult& r, const std::string& op, diag::Span at);

  // Runs a tensor expression's graph: its inputs read from the slots (a
  // structure's by path, "m.w1"), its results assembled as the checker
  // typed them, and the structures it changed (`mut`) written back.
  Value graph(const ir::HostFunction& fn, const HostInstr& in, std::vector<Value>& slots);

  // A graph on the workers when it has a batch to split, else here.
  std::vector<Tensor> run(const ir::Graph& g, const std::map<std::string, Tensor>& inputs);

  std::string resolve(const std::string& path) const {
    if (path.empty() || path[0] == '/' || options_.base_dir.empty()) return path;
    return options_.base_dir + "/" + path;
  }

  // `data |> map(f)`: f (a device function from one record to another) run
  // on each example; the results make a new dataset, in the same order.
  Value map_examples(const Value& data, const std::string& function, diag::Span span);

  double number_in(const std::vector<Value>& slots, int slot) const {
    return as_double(slots[static_cast<std::size_t>(slot)]);
  }

  std::map<std::string, double> keywords(const HostInstr& in, const std::vector<Value>& slots) {
    std::map<std::string, double> out;
    for (const auto& part : in.parts) out[part.text] = number_in(slots, part.slot);
    return out;
  }

  // Models, optimisers, files, sinks and datasets.
  void training(const HostInstr& in, std::vector<Value>& slots);

  Value format(const HostInstr& in, const std::vector<Value>& slots);

  std::int64_t dropout_runs_ = 0;
  std::map<const ir::Graph*, ir::Graph> distributed_;  // each graph as the workers run it
  const ir::Program& p_;
  const ir::HostProgram& code_;
  const diag::SourceMap& map_;
  const RunOptions& options_;
  std::chrono::steady_clock::time_point deadline_;
  // Each function's compiled code, or null where it is interpreted.
  std::map<const ir::HostFunction*, ControllerCode> compiled_;
};

}  // namespace ss::runtime::control
