#include <algorithm>
#include <utility>
#include <variant>

#include "api/devices.hpp"
#include "api/host_functions.hpp"
#include "api/module_impl.hpp"
#include "api/prepare.hpp"
#include "api/value_fit.hpp"
#include "diag/codes.hpp"
#include "ir/averaged_axes.hpp"
#include "ir/distribute.hpp"
#include "kernels/cuda_executor.hpp"
#include "runtime/controller/controller.hpp"
#include "runtime/core/host_arguments.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "runtime/reference/ops.hpp"

namespace ss {
namespace {

static_assert(static_cast<int>(DType::boolean) == static_cast<int>(runtime::DType::boolean),
              "ss::DType and runtime::DType list the element types alike");

Tensor to_public(const runtime::Tensor& t) {
  // Results are copied out: the host owns what it gets, whatever the
  // runtime's buffers alias.
  const runtime::Tensor packed = t.compact();  // a view's elements, in order
  return Tensor::copy(static_cast<DType>(t.dtype()), packed.raw(), t.shape());
}

}  // namespace

runtime::Tensor Module::Impl::to_runtime(const Tensor& t) {
  return runtime::Tensor::borrow_strided(
      const_cast<void*>(t.data()), static_cast<runtime::DType>(t.dtype()), t.shape(), t.strides());
}

std::optional<Diagnostic> Module::Impl::unusable(const std::string& name, const Tensor& t) {
  std::string why;
  if (t.strides().size() != t.shape().size())
    why = "`" + name + "` has " + std::to_string(t.strides().size()) + " strides for " +
          std::to_string(t.shape().size()) + " axes";
  else if (t.data() == nullptr && t.size() > 0)
    why = "`" + name + "` has no data";
  for (const auto d : t.shape())
    if (d < 0) why = "`" + name + "` has a negative size in its shape";
  if (why.empty()) return std::nullopt;
  return diag::error(diag::Code::E1603, why,
                     "make it with Tensor::of, Tensor::view or Tensor::copy, one stride per axis");
}

void Module::Impl::bind(const LoadOptions& options, const EngineOptions& engine) {
  load_options = options;
  api::apply_dims(*compiled, options.dims);
  std::vector<std::string> bound;
  for (const auto& [name, callback] : options.sinks)
    if (callback) bound.push_back(name);
  if (options.strict_sinks) api::check_sinks(*compiled, bound);
  sinks.clear();
  for (const auto& [name, span] : compiled->typed.sinks) {
    if (const auto it = options.sinks.find(name); it != options.sinks.end() && it->second)
      sinks[name] = it->second;
    else if (options.unbound_sink)
      sinks[name] = [name = name, to = options.unbound_sink](const SinkRecord& r) { to(name, r); };
  }
  api::check_host_functions(*compiled, options.host_functions);
  api::check_host_device(*compiled, engine.device);
  devices = api::make_devices(*compiled, options, engine);
  const bool fast = engine.executor == Executor::fast;
  executor = api::make_executor(*compiled, engine, devices != nullptr, workers);
  if (devices) devices->set_executor(executor);
  // Several CUDA devices: each worker runs on its own GPU's executor.
  std::vector<std::shared_ptr<const runtime::GraphExecutor>> per_worker;
  if (devices && fast && compiled->ok() && compiled->typed.device_kind == "cuda") {
    for (const auto index : compiled->typed.device_indices)
      if (auto on_gpu = api::cuda_executor_for(*compiled, static_cast<int>(index), engine))
        per_worker.push_back(std::move(on_gpu));
  }
  code_cache = engine.code_cache;
  executor_name = api::executor_name(*compiled, engine, devices != nullptr);
  // What lowering couldn't turn into code is found now, not when it runs;
  // the executor plans every graph (its kernels compiled) as the last pass.
  program = api::prepare_program(
      *compiled, {.executor = executor_name, .distribute = !!devices, .planner = executor.get()});
  if (const SsJitApi* jit = executor ? runtime::executor_jit(*executor) : nullptr;
      jit && compiled->ok())
    controller_code = runtime::compile_controller(*jit, program, code_cache);
  if (!per_worker.empty() && compiled->ok()) {
    for (const auto& worker : per_worker)
      for (const auto& [name, g] : program.distributed) worker->plan(g);
    devices->set_executors(std::move(per_worker));
  }
  callable.clear();
  for (const auto& [name, g] : program.graphs) {
    Callable& c = callable[name];
    c.graph = &g;
    c.averaged = ir::averaged_axes(g);
    c.inputs = {name,
                {},
                "input",
                "its inputs are its tensor parameters, models' parameters (m.w1) and records' "
                "fields (batch.x)"};
    for (const int id : g.inputs) {
      const auto& node = g.nodes[static_cast<std::size_t>(id)];
      c.inputs.inputs.emplace_back(node.name, node.type);
    }
    if (const auto sig = program.functions.find(name); sig != program.functions.end())
      for (const auto& param : sig->second.params) {
        auto& names = c.fields.emplace_back();
        const std::string prefix = param.name + ".";
        for (const auto& [input, type] : c.inputs.inputs)
          if (input.compare(0, prefix.size(), prefix) == 0)
            names.emplace_back(input.substr(prefix.size()), input);
      }
    c.whole = executor && executor->runs_whole_graphs();
    c.framed = executor && (runtime::is_fast_executor(*executor) || c.whole) && !devices &&
               program.functions.count(name);
    for (const int id : g.inputs) {
      const std::string& input = g.nodes[static_cast<std::size_t>(id)].name;
      api::InputSource& source = c.sources.emplace_back();
      source.seed = input == "$seed";
      const auto& params =
          c.framed ? program.functions.at(name).params : std::vector<ir::Parameter>{};
      for (std::size_t i = 0; i < params.size() && !source.seed && source.param < 0; ++i) {
        if (params[i].name == input && takes_tensor(params[i].type))
          source.param = static_cast<int>(i);
        for (const auto& [path, name_in_graph] : c.fields[i])
          if (name_in_graph == input) source = {static_cast<int>(i), path, false};
      }
      c.framed = c.framed && (source.seed || source.param >= 0);
    }
  }
}

runtime::RunOptions Module::Impl::run_options(std::function<void(std::string_view)> print) const {
  const auto* fast = executor.get();
  runtime::RunOptions run{.print = std::move(print),
                          .progress = load_options.progress,
                          .base_dir = base_dir,
                          .devices = devices.get(),
                          .executor = fast,
                          .jit = fast ? runtime::executor_jit(*fast) : nullptr,
                          .code_cache = code_cache,
                          .compiled = &controller_code};
  run.call_host = api::host_caller(load_options.host_functions);
  run.files = load_options.files;
  run.time_limit = load_options.time_limit;
  run.memory_limit = load_options.memory_limit;
  run.on_call = [this](const std::string& name, bool by_jit) {
    std::lock_guard lock(controller_mutex);
    FunctionStats& f = controller_calls[name];
    f.kind = "controller";
    f.executor = by_jit ? "compiled" : "interpreted";
    ++f.calls;
  };
  if (load_options.stats)
    run.stats = [to = load_options.stats](const std::string& name,
                                          const std::vector<runtime::WorkerStats>& worker_stats) {
      to({name, api::to_public(worker_stats)});
    };
  for (const auto& [name, callback] : sinks) run.sinks[name] = callback;
  return run;
}

Value Module::Impl::keep(Value v) const {
  if (const auto& state = ValueAccess::state(v)) {
    std::lock_guard lock(lineage->values_mutex);
    std::erase_if(lineage->live_values, [](const auto& w) { return w.expired(); });
    lineage->live_values.push_back(state);
  }
  return v;
}

Value Module::Impl::ready(Value v) const {
  const auto& state = ValueAccess::state(v);
  if (!executor || !state) return v;
  const runtime::Value& value = *state->current().value;
  if (value.kind != runtime::Value::Kind::model) return v;
  for (const auto& [name, c] : callable) {
    const auto sig = program.functions.find(name);
    if (sig == program.functions.end()) continue;
    std::map<std::string, runtime::Tensor> resident;  // the graph's input names
    for (std::size_t p = 0; p < sig->second.params.size() && p < c.fields.size(); ++p) {
      const auto& type = sig->second.params[p].type;
      if (!type.is(types::Type::Kind::model) || type.name != state->name) continue;
      for (const auto& [path, input] : c.fields[p])
        if (const auto t = value.fields.find(path); t != value.fields.end())
          resident[input] = t->second;
    }
    if (!resident.empty()) executor->prepare(*c.graph, resident);
  }
  return v;
}

std::optional<Diagnostic> Module::Impl::empty_module() const {
  if (compiled) return std::nullopt;
  return diag::error(diag::Code::E1612, "this module is empty: it holds no program",
                     "a default-constructed or moved-from ss::Module has none: call the Module "
                     "that Engine::load_file or load_source returned (or that it was moved to)");
}

Module::Module() = default;
Module::Module(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
Module::~Module() = default;
Module::Module(Module&& other) noexcept {
  std::lock_guard lock(other.impl_mutex_);
  impl_ = std::move(other.impl_);
}
Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    std::scoped_lock lock(impl_mutex_, other.impl_mutex_);
    impl_ = std::move(other.impl_);
  }
  return *this;
}

std::shared_ptr<Module::Impl> Module::held() const {
  std::lock_guard lock(impl_mutex_);
  return impl_;
}

void Module::publish(std::shared_ptr<Impl> next) {
  std::shared_ptr<Impl> old;  // released outside the lock: its last call may have ended
  {
    std::lock_guard lock(impl_mutex_);
    old = std::exchange(impl_, std::move(next));
  }
}

std::shared_ptr<const Module::Impl> Module::current() const {
  if (auto impl = held()) return impl;
  return Impl::empty();
}

Module::operator bool() const {
  const auto impl = current();
  return impl->compiled && impl->compiled->ok();
}

const std::vector<Diagnostic>& Module::diagnostics() const {
  static const std::vector<Diagnostic> none;
  // The program stays alive in impl_ until a reload replaces it.
  const auto impl = current();
  return impl->compiled ? impl->compiled->diagnostics : none;
}

ExecutorStats Module::executor_stats() const {
  ExecutorStats s;
  const auto impl = current();
  const auto& executor = impl->executor;
  s.executor = "reference";
  if (executor) {
    const auto plans = executor->plan_counts();
    s.plans_at_load = plans.at_load;
    s.plans_at_call = plans.at_call;
  }
  if (executor && cuda::is_cuda_executor(*executor)) {
    const auto c = cuda::cuda_counts(*executor);
    s.executor = c.cublas ? "cuda (cuBLAS)" : "cuda";
    s.kernels_compiled = c.kernels_compiled;
    s.kernels_from_cache = c.kernels_from_store;
    s.kernel_runs = c.fused_kernels;
    s.nodes = c.nodes;
    for (const auto& [name, n] :
         {std::pair<const char*, std::int64_t>{"graphs captured", c.graph_captures},
          {"graphs replayed", c.graph_replays},
          {"graph results moved out", c.graph_moved_out}})
      if (n) s.nodes[name] = n;
  } else if (executor && runtime::is_fast_executor(*executor)) {
    s.executor = "fast";
    s.jit = runtime::executor_has_jit(*executor);
    const auto fused = runtime::fusion_counts(*executor);
    s.kernels_compiled = fused.kernels;
    s.kernels_from_memory = fused.from_memory;
    s.kernels_from_cache = fused.from_store;
    s.kernel_runs = fused.runs;
    s.jit_failures = fused.jit_failures;
    s.jit_error = fused.jit_error;
    s.nodes = runtime::executor_nodes(*executor);
    for (auto& [name, g] : runtime::executor_functions(*executor))
      s.functions[name] = {"device", "fast", g.calls, g.fused_kernels, std::move(g.nodes)};
  }
  for (const auto& [fn, code] : impl->controller_code)
    if (!code.fn) {
      ++s.jit_failures;
      s.jit_error = code.error;
    }
  std::lock_guard lock(impl->controller_mutex);
  for (const auto& [name, f] : impl->controller_calls) s.functions[name] = f;
  return s;
}

namespace {

// Every input a device function of the program takes, by name ("m.w1",
// "batch.pixels"), with its type: what a host may pass to calls. A
// function that didn't lower takes nothing a host could keep.
std::map<std::string, types::Type> program_inputs(const std::map<std::string, ir::Graph>& graphs) {
  std::map<std::string, types::Type> inputs;
  for (const auto& [name, g] : graphs)
    for (const int id : g.inputs) {
      const auto& n = g.nodes[static_cast<std::size_t>(id)];
      inputs.emplace(n.name, n.type);
    }
  return inputs;
}

// Why `t` doesn't fit an input of type `want`, or "".
std::string misfit(const Tensor& t, const types::Type& want, const runtime::Dims& dims) {
  const std::string shape = runtime::shape_str(t.shape());
  if (static_cast<runtime::DType>(t.dtype()) != runtime::dtype_of(want.elem))
    return "the new program's is " + want.str() + ", of another element type";
  bool fits = t.shape().size() == want.axes.size();
  for (std::size_t k = 0; fits && k < want.axes.size(); ++k)
    if (const auto size = runtime::size_of(want.axes[k], {}, dims); size && *size != t.shape()[k])
      fits = false;
  return fits ? "" : "the new program's is " + want.str() + "; this one is " + shape;
}

}  // namespace

ReloadReport Module::reload(const Engine& engine, std::string_view text, std::string_view name,
                            const LoadOptions& options, std::map<std::string, Tensor>* state) {
  ReloadReport report;
  // The lineage (reloads one at a time, the live values) goes on from the
  // program now to the next; an empty module starts one.
  const std::shared_ptr<Impl> old = held();
  const auto lineage = old ? old->lineage : std::make_shared<Impl::Lineage>();
  std::unique_lock reloading(lineage->reloading);
  Module fresh = engine.load_source(text, name, options);
  report.diagnostics = fresh.diagnostics();
  if (!fresh) return report;  // this module keeps its program
  std::shared_ptr<Impl> next = fresh.held();
  next->lineage = lineage;
  if (state) {
    const auto& typed = next->compiled->typed;
    const auto inputs = program_inputs(next->program.graphs);
    for (auto it = state->begin(); it != state->end();) {
      const auto found = inputs.find(it->first);
      std::string why = found == inputs.end() ? "no function of the new program takes it"
                                              : misfit(it->second, found->second, typed.dims);
      if (why.empty()) {
        report.kept.push_back(it->first);
        ++it;
      } else {
        report.dropped.emplace_back(it->first, std::move(why));
        it = state->erase(it);
      }
    }
  }
  // The values this module made live on in the new program, if they fit it.
  {
    std::lock_guard lock(lineage->values_mutex);
    for (const auto& weak : lineage->live_values)
      if (auto held = weak.lock()) {
        Value v = ValueAccess::wrap(held);
        const std::string why = api::layout_misfit(next->program, *held, *held->current().value);
        if (why.empty())
          report.kept_values.push_back(std::move(v));
        else
          report.dropped_values.emplace_back(std::move(v), why);
      }
  }
  // Published whole: a call that started before holds `old` to its end.
  publish(std::move(next));
  return report;
}

std::size_t Module::prepared() const {
  return current()->program.graphs.size();
}

CallResult Module::Impl::call_tensors(const std::string& function, const ir::Signature& sig,
                                      const Callable& prepared,
                                      const std::vector<Tensor>& positional,
                                      const std::map<std::string, Tensor>& named) const {
  CallResult r;
  for (std::size_t i = 0; i < positional.size(); ++i)
    if (auto bad = Impl::unusable("argument " + std::to_string(i + 1), positional[i])) {
      r.diagnostics.push_back(std::move(*bad));
      return r;
    }
  for (const auto& [name, tensor] : named)
    if (auto bad = Impl::unusable(name, tensor)) {
      r.diagnostics.push_back(std::move(*bad));
      return r;
    }

  // Arguments: positional ones to the tensor parameters in order.
  std::map<std::string, runtime::Tensor> inputs;
  std::size_t next = 0;
  for (std::size_t i = 0; i < sig.params.size() && next < positional.size(); ++i) {
    if (!takes_tensor(sig.params[i].type))
      continue;  // models and records are passed by name, field by field
    inputs[sig.params[i].name] = Impl::to_runtime(positional[next++]);
  }
  if (next < positional.size())
    return api::failed_call(
        diag::Code::E1603,
        "`" + function + "` takes fewer tensor parameters than the " +
            std::to_string(positional.size()) + " positional arguments given",
        "name a model's parameters and a record's fields instead: {\"m.w1\", w1}");
  for (const auto& [name, tensor] : named) inputs[name] = Impl::to_runtime(tensor);
  const auto source =
      command_line ? runtime::ArgumentSource::command_line : runtime::ArgumentSource::host;
  const auto outputs = run_device(function, prepared, inputs, source, r);
  if (!outputs) return r;
  for (const auto& t : *outputs) r.outputs.push_back(to_public(t));
  r.updated = prepared.graph->updated;
  return r;
}

std::optional<Diagnostic> Module::Impl::empty_average(
    const std::string& function, const Callable& prepared,
    const std::map<std::string, runtime::Tensor>& inputs) {
  if (prepared.averaged.empty()) return std::nullopt;
  const ir::Graph& graph = *prepared.graph;
  for (const int id : graph.inputs) {
    const ir::Node& n = graph.nodes[static_cast<std::size_t>(id)];
    const auto given = inputs.find(n.name);
    if (given == inputs.end()) continue;
    for (std::size_t k = 0; k < n.type.axes.size(); ++k) {
      const types::Axis& axis = n.type.axes[k];
      if (!axis.single() || axis.factors[0].kind != types::Factor::Kind::generic ||
          !prepared.averaged.count(axis.factors[0].name) || k >= given->second.shape().size() ||
          given->second.shape()[k] != 0)
        continue;
      const std::string& b = axis.factors[0].name;
      return diag::error(diag::Code::E1613,
                         "`" + function + "` takes a mean over `" + b + "`, and `" + n.name +
                             "` gives it no elements: " + n.type.str() + " of shape " +
                             runtime::shape_str(given->second.shape()),
                         "call it with at least one example along `" + b +
                             "`; a mean over none is no number (NaN), so nothing ran and no "
                             "value changed");
    }
  }
  return std::nullopt;
}

std::optional<std::vector<runtime::Tensor>> Module::Impl::run_device(
    const std::string& function, const Callable& prepared,
    std::map<std::string, runtime::Tensor>& inputs, runtime::ArgumentSource source,
    CallResult& r) const {
  const ir::Graph& graph = *prepared.graph;
  std::int32_t seed = 0;
  for (const int id : graph.inputs)  // dropout's seed, unless the host gives one
    if (graph.nodes[static_cast<std::size_t>(id)].name == "$seed" && !inputs.count("$seed")) {
      seed = static_cast<std::int32_t>(dropout_runs.fetch_add(1));
      inputs["$seed"] = runtime::Tensor::borrow(&seed, runtime::DType::i32, {});
    }
  if (auto bad = runtime::match_arguments(prepared.inputs, inputs, source)) {
    r.diagnostics.push_back(std::move(*bad));
    return std::nullopt;
  }
  if (auto empty = empty_average(function, prepared, inputs)) {
    r.diagnostics.push_back(std::move(*empty));
    return std::nullopt;
  }
  const auto& dims = compiled->typed.dims;
  try {
    if (devices && runtime::has_split_input(graph)) {
      const auto distributed = program.distributed.find(function);
      if (distributed == program.distributed.end())  // it didn't at load: why
        throw ir::NoDistributedLowering(program.not_distributed.at(function));
      std::vector<runtime::WorkerStats> worker_stats;
      auto outputs = devices->run(distributed->second, inputs, dims, &worker_stats);
      r.workers = api::to_public(worker_stats);
      if (load_options.stats)
        runtime::host_call("the stats callback", [&] {
          load_options.stats({function, r.workers});
        });
      return outputs;
    }
    return runtime::run_graph(graph, inputs, dims, nullptr, executor.get());
  } catch (const runtime::InputMismatch& e) {
    r.diagnostics.push_back(runtime::mismatched_argument(e.what(), source));
  } catch (const std::exception& e) {
    r.diagnostics.push_back(run_failure(function, e));
  }
  return std::nullopt;
}

Diagnostic Module::Impl::run_failure(const std::string& function, const std::exception& e) const {
  const auto at = compiled->typed.functions.at(function).item->name_span;
  auto d = runtime::program_failure(e, *compiled->map, at);
  return d ? std::move(*d) : runtime::unexpected_failure(e);
}

}  // namespace ss
