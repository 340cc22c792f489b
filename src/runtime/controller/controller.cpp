#include "runtime/controller/controller_impl.hpp"
#include "runtime/core/host_arguments.hpp"

namespace ss::runtime {

using control::Controller;
using control::Failure;
using ir::HostInstr;
using ir::HostKind;
using ir::HostOp;

namespace control {

Value from_output(const Tensor& t, HostKind kind) {
  if (kind == HostKind::integer || kind == HostKind::floating)
    return number(t.get(0), kind == HostKind::integer);
  Value v = of_kind(Value::Kind::tensor);
  v.tensor = t;
  return v;
}

}  // namespace control

CompiledController compile_controller(const SsJitApi& api, const ir::Program& program,
                                      const CodeCache& cache) {
  CompiledController compiled;
  for (const auto& [name, fn] : program.controller)
    compiled[&fn] = controller_code(api, fn, cache);  // null: interpreted
  return compiled;
}

ControllerCode controller_code(const SsJitApi& api, const ir::HostFunction& fn,
                               const CodeCache& cache) {
  std::vector<SsJitHostStep> steps;
  for (const HostInstr& in : fn.code) switch (in.op) {
      case HostOp::branch:
        steps.push_back({SS_JIT_HOST_BRANCH, in.target});
        break;
      case HostOp::loop_next:
        steps.push_back({SS_JIT_HOST_LOOP, in.target});
        break;
      case HostOp::jump:
        steps.push_back({SS_JIT_HOST_JUMP, in.target});
        break;
      case HostOp::ret:
        steps.push_back({SS_JIT_HOST_RETURN, -1});
        break;
      default:
        steps.push_back({SS_JIT_HOST_EXEC, -1});
    }
  const auto compile = [&](const std::string& prefix, std::string* object, std::string* error) {
    return compile_with(
        [&](auto write, void* context, char* why, std::size_t size) {
          return api.compile_controller(steps.data(), static_cast<std::int32_t>(steps.size()),
                                        prefix.c_str(), write, context, why, size);
        },
        object, error);
  };
  ControllerCode out;
  auto code = cached_code(api, controller_identity(api, steps), 1, compile, cache, &out.error);
  // Without code the function is interpreted, as without the JIT.
  if (code) {
    out.fn = reinterpret_cast<SsJitHostFn>(code->fns[0]);
    out.link = std::move(code->link);
  }
  return out;
}

std::optional<Diagnostic> program_failure(const std::exception& e, const diag::SourceMap& map,
                                          diag::Span at) {
  std::optional<Diagnostic> d;  // each branch gives it its code
  if (const auto* worker = dynamic_cast<const WorkerFailure*>(&e)) {
    const std::string where = "on worker " + worker->device + " (rank " +
                              std::to_string(worker->rank) + "), in its part of the batch";
    try {
      std::rethrow_exception(worker->cause);
    } catch (const CollectiveError& c) {
      d = diag::error(diag::Code::E1806, std::string("a collective failed: ") + c.what(),
                      "a worker that stops answering, a lost device or a failed communicator "
                      "ends the call; the next call starts the collectives afresh (on MPI, "
                      "the job ends)");
      d->labels.push_back(map.label(at, "in this call", true));
      d->notes.push_back(where);
    } catch (const std::exception& cause) {
      auto inner = program_failure(cause, map, at);
      if (!inner) return std::nullopt;
      inner->notes.push_back(where);
      return inner;
    } catch (...) {
      return std::nullopt;
    }
  } else if (const auto* split = dynamic_cast<const SplitMismatch*>(&e)) {
    d = diag::error(diag::Code::E0708, split->what(), "the given sizes must divide the axis");
    d->labels.push_back(map.label(split->span, "at run time", true));
  } else if (const auto* range = dynamic_cast<const reference::RangeError*>(&e)) {
    d = diag::error(diag::Code::E0509,
                    "the value " + std::to_string(range->value) + " is outside 0.." +
                        std::to_string(range->bound - 1),
                    "an Index[C] holds 0 to C-1: check the data, or clip before casting");
    d->labels.push_back(map.label(at, "here", true));
  } else if (const auto* memory = dynamic_cast<const MemoryLimitError*>(&e)) {
    d = diag::error(diag::Code::E1610, memory->what(),
                    "the host limits the memory a run may hold (LoadOptions::memory_limit, "
                    "--memory-limit): use smaller batches or models, or ask the host for more");
    d->labels.push_back(map.label(at, "in this call", true));
  } else if (const auto* refused = dynamic_cast<const std::bad_alloc*>(&e)) {
    d = out_of_memory(*refused);
    d->labels.push_back(map.label(at, "in this call", true));
  } else if (const auto* device = dynamic_cast<const DeviceError*>(&e)) {
    d = diag::error(device->code, device->what(), device->help);
    d->labels.push_back(map.label(at, "in this call", true));
  } else {
    return std::nullopt;
  }
  d->location = d->labels.back().start;
  return d;
}

Diagnostic internal_error(const std::string& what) {
  return diag::error(
      diag::Code::E0001, "internal error: " + what,
      "this is a bug in shapescript, not in the program: please report it with the program");
}

Diagnostic out_of_memory(const std::bad_alloc& e) {
  const bool sized = dynamic_cast<const OutOfMemory*>(&e) != nullptr;
  return diag::error(
      diag::Code::E1611,
      sized ? std::string(e.what())
            : "out of memory: the system refused an allocation (" + std::string(e.what()) + ")",
      "use smaller batches or models, free memory the host holds, or run on a "
      "machine with more; LoadOptions::memory_limit stops a run before it gets "
      "this far");
}

Diagnostic host_callback_failure(const HostCallbackFailed& e) {
  return diag::error(diag::Code::E1614, e.callback + " threw: " + e.what(),
                     "the call that waited on it failed, and nothing it would have made is kept; "
                     "the library's state is intact, so the next call runs");
}

Diagnostic unexpected_failure(const std::exception& e) {
  if (const auto* callback = dynamic_cast<const HostCallbackFailed*>(&e))
    return host_callback_failure(*callback);
  if (const auto* memory = dynamic_cast<const std::bad_alloc*>(&e)) return out_of_memory(*memory);
  return internal_error(e.what());
}

namespace {

// `function`'s parameters bound from the host's values by name (matched as
// a Module's call matches them: runtime/core/host_arguments), a tensor's
// shape and element type checked as a call's inputs are, a number given as
// a scalar. Throws Failure.
std::vector<Value> bind_arguments(const ir::Program& program, const std::string& function,
                                  const std::map<std::string, Tensor>& args) {
  const auto& fn = program.functions.at(function);
  const auto fail = [&](diag::Code code, std::string message, std::string help) {
    throw Failure{diag::error(code, std::move(message), std::move(help))};
  };
  WantedInputs wanted{function, {}, "parameter", "its parameters are named in its `fn` line"};
  for (const auto& param : fn.params) wanted.inputs.emplace_back(param.name, param.type);
  if (auto bad = match_arguments(wanted, args, ArgumentSource::command_line))
    throw Failure{std::move(*bad)};
  ir::Graph shapes;  // one input per tensor parameter, to check the given shapes
  std::map<std::string, Tensor> given;
  std::vector<Value> values;
  for (std::size_t i = 0; i < fn.params.size(); ++i) {
    const std::string& name = fn.params[i].name;
    const types::Type& type = fn.params[i].type;
    const Tensor& t = args.at(name);
    if (type.is(types::Type::Kind::tensor)) {
      ir::Node input{.op = ir::Op::input, .name = name, .type = type};
      shapes.inputs.push_back(shapes.add(std::move(input)));
      given[name] = t;
      Value v = of_kind(Value::Kind::tensor);
      v.tensor = t;
      values.push_back(std::move(v));
    } else if (type.is(types::Type::Kind::integer) || type.is(types::Type::Kind::floating)) {
      const bool integer = type.is(types::Type::Kind::integer);
      if (t.rank() != 0)
        fail(diag::Code::E1603,
             "`" + name + "` is " + (integer ? "an integer" : "a number") +
                 ", given a tensor of shape " + shape_str(t.shape()),
             "give one number: `--arg " + name + (integer ? "=3`" : "=0.5`"));
      if (integer && t.get(0) != std::trunc(t.get(0)))
        fail(diag::Code::E1603,
             "`" + name + "` is an integer, given " + format_float(t.get(0), t.dtype()),
             "give a whole number: `--arg " + name + "=3`");
      values.push_back(number(t.get(0), integer));
    } else {
      fail(diag::Code::E1602, "`" + name + "` is a " + type.str() + ", which a host can't pass",
           "give the function tensor and number parameters, and build the rest inside it");
    }
  }
  try {
    (void)bind_sizes(shapes, given, program.dims);
  } catch (const InputMismatch& e) {
    throw Failure{mismatched_argument(e.what(), ArgumentSource::command_line)};
  }
  return values;
}

}  // namespace

std::vector<Diagnostic> run_function(const ir::Program& program, const diag::SourceMap& map,
                                     const std::string& function,
                                     const std::map<std::string, Tensor>& args,
                                     const RunOptions& options) {
  Controller controller(program, map, options);
  std::optional<MemoryBudget::Scope> budget;
  MemoryBudget::hold(budget, options.memory_limit);
  try {
    const Value result = controller.call(function, bind_arguments(program, function, args), {});
    if (result.kind != Value::Kind::none && options.print)
      host_call("the print callback", [&] { options.print(show(result) + "\n"); });
  } catch (const Failure& failure) {
    return {failure.diagnostic};
  } catch (const std::exception& e) {
    return {unexpected_failure(e)};
  }
  return {};
}

FunctionCall call_function(const ir::Program& program, const diag::SourceMap& map,
                           const std::string& function, std::vector<Value> args,
                           const RunOptions& options) {
  Controller controller(program, map, options);
  std::optional<MemoryBudget::Scope> budget;
  MemoryBudget::hold(budget, options.memory_limit);
  FunctionCall out;
  try {
    out.result = controller.call(function, std::move(args), {}, &out.finals);
  } catch (const Failure& failure) {
    out.errors.push_back(failure.diagnostic);
  } catch (const std::exception& e) {
    out.errors.push_back(unexpected_failure(e));
  }
  return out;
}

}  // namespace ss::runtime
