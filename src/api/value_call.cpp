// Module::call with values: any function of the program, its arguments
// the parameters in order, `mut` ones published as new versions when the
// call ends; and call_into, whose results go to the host's buffers.
#include <algorithm>

#include "api/devices.hpp"
#include "api/module_impl.hpp"
#include "api/value_fit.hpp"
#include "diag/codes.hpp"
#include "ir/distribute.hpp"
#include "runtime/controller/models.hpp"
#include "runtime/core/float_state.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/inline_vector.hpp"

namespace ss {
namespace {

using RKind = runtime::Value::Kind;
using TKind = types::Type::Kind;

using api::failed_call;

// One argument as the call holds it: the value's version it reads (taken
// when the call starts, or once its writer lock is held for `mut`), or
// the host's tensor or number.
struct Bound {
  const Arg* arg = nullptr;
  std::shared_ptr<Value::State> state;
  std::shared_ptr<const runtime::Value> value;  // a value's version
};

// The writer locks of a call's `mut` values, each once, taken in one
// order (their addresses) so two calls never wait on each other. (A value
// given twice as `mut` is refused after, by bind_arguments.)
class WriterLocks {
 public:
  explicit WriterLocks(const std::vector<Arg>& args) {
    std::vector<Value::State*> states;
    for (const Arg& a : args)
      if (a.is_mut() && a.holds() == Arg::Holds::value && ValueAccess::state(a.value()))
        states.push_back(ValueAccess::state(a.value()).get());
    std::sort(states.begin(), states.end());
    states.erase(std::unique(states.begin(), states.end()), states.end());
    for (auto* s : states) locks_.emplace_back(s->writer);
  }

 private:
  std::vector<std::unique_lock<std::mutex>> locks_;
};

using BoundArguments = support::InlineVector<Bound, 8>;

// Checks each argument against its parameter and takes the versions it
// reads; the diagnostic of the first that doesn't fit.
std::optional<Diagnostic> bind_arguments(const ir::Program& p, std::uint64_t serial,
                                         const std::string& function, const ir::Signature& sig,
                                         const std::vector<Arg>& args, BoundArguments& bound) {
  const auto misfit = [&](const ir::Parameter& param, const std::string& why,
                          std::string help = {}) {
    return diag::error(
        diag::Code::E1603, "`" + param.name + "` is a " + param.type.str() + "; " + why,
        help.empty() ? "pass " + function + "'s parameters in order, each of its type"
                     : std::move(help));
  };
  if (args.size() < sig.params.size()) {
    const auto& param = sig.params[args.size()];
    return diag::error(diag::Code::E1605,
                       "`" + function + "` needs `" + param.name + "`, a " + param.type.str(),
                       "pass every parameter, in order: " + std::to_string(sig.params.size()) +
                           " for `" + function + "`");
  }
  if (args.size() > sig.params.size())
    return diag::error(diag::Code::E1603,
                       "`" + function + "` takes " + std::to_string(sig.params.size()) +
                           " parameters, given " + std::to_string(args.size()),
                       "pass its parameters in order, one argument each");
  std::vector<const Value::State*> muts;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    const ir::Parameter& param = sig.params[i];
    Bound b{.arg = &a};
    if (param.is_mut && !a.is_mut())
      return misfit(param, "it is `mut`, given a value to read",
                    "let the call change the value: pass ss::mut(v)");
    if (!param.is_mut && a.is_mut())
      return misfit(param, "the function reads it, given ss::mut(v)", "pass the value itself");
    if (a.holds() == Arg::Holds::value) {
      b.state = ValueAccess::state(a.value());
      if (!b.state) return misfit(param, "given an empty value");
      if (a.is_mut()) {
        if (std::find(muts.begin(), muts.end(), b.state.get()) != muts.end())
          return misfit(param, "the same value is given twice as `mut`",
                        "give each `mut` parameter a value of its own");
        muts.push_back(b.state.get());
      }
      const auto version = b.state->current();
      b.value = version.value;
      if (auto why = api::value_misfit(p, param.type, *b.state, *b.value,
                                       /*layout_known=*/version.fits == serial);
          !why.empty())
        return misfit(param, "given " + b.state->label + ": " + why);
      if (version.fits != serial && b.value->kind != RKind::tensor)
        b.state->mark_fits(version.number, serial);
    } else if (!Module::Impl::takes_tensor(param.type)) {
      return misfit(
          param,
          std::string("given a host ") + (a.holds() == Arg::Holds::tensor ? "tensor" : "number"),
          "make the value first: Module::make, load, batch or dataset");
    } else if (a.is_mut()) {
      return misfit(param, "a host's tensor can't be `mut`", "make it a value: Module::tensor");
    } else if (a.holds() == Arg::Holds::tensor) {
      if (auto bad = Module::Impl::unusable(param.name, a.tensor())) return bad;
      if ((param.type.is(TKind::integer) || param.type.is(TKind::floating)) &&
          a.tensor().size() != 1)
        return misfit(param, "given a tensor of shape " + runtime::shape_str(a.tensor().shape()));
    } else if (param.type.is(TKind::tensor) && !param.type.axes.empty()) {
      return misfit(param, "given a number");
    }
    bound.push_back(std::move(b));
  }
  return std::nullopt;
}

// A graph input as a call with values gives it: its element type and
// shape, and the tensor (a value's, or the host's); neither for dropout's
// seed.
struct Given {
  runtime::DType dtype = runtime::DType::f32;
  const std::int64_t* dims = nullptr;
  std::size_t rank = 0;
  const runtime::Tensor* tensor = nullptr;
  const Tensor* host = nullptr;
};

// Whether `cached` is `version` (the same object: while the call holds
// `version`, no other can have its control block).
bool same_version(const std::weak_ptr<const runtime::Value>& cached,
                  const std::shared_ptr<const runtime::Value>& version) {
  return !cached.owner_before(version) && !version.owner_before(cached);
}

// False for an input a frame doesn't take (a number, a value that isn't
// a tensor, a field the structure lacks): the call goes the named way.
bool given_input(const Module::Impl::Callable& c, std::size_t k,
                 const std::vector<ir::Parameter>& params, const BoundArguments& bound, Given& g,
                 const api::CallFrame* frame = nullptr) {
  const api::InputSource& s = c.sources[k];
  g = {};
  if (s.seed) {
    g.dtype = runtime::DType::i32;
    return true;
  }
  const Bound& b = bound[static_cast<std::size_t>(s.param)];
  const types::Type& type = params[static_cast<std::size_t>(s.param)].type;
  if (!s.field.empty()) {
    if (!b.value) return false;
    if (frame && frame->field[k] && same_version(frame->field_of[k], b.value)) {
      g.tensor = frame->field[k];  // the field the last call found in this version
    } else {
      const auto it = b.value->fields.find(s.field);
      if (it == b.value->fields.end()) return false;
      g.tensor = &it->second;
    }
  } else if (!type.is(TKind::tensor)) {
    return false;
  } else if (b.value) {
    if (b.value->kind != RKind::tensor) return false;
    g.tensor = &b.value->tensor;
  } else if (b.arg->holds() == Arg::Holds::tensor) {
    g.host = &b.arg->tensor();
  } else {
    return false;
  }
  if (g.tensor) {
    g.dtype = g.tensor->dtype();
    g.dims = g.tensor->shape().data();
    g.rank = g.tensor->shape().size();
  } else {
    g.dtype = static_cast<runtime::DType>(g.host->dtype());
    g.dims = g.host->shape().data();
    g.rank = g.host->shape().size();
  }
  return true;
}

// The frame for a call with values: the cached one its inputs' shapes fit,
// or a new one, its inputs checked as run_device checks them (E1603,
// E1605, E1613 into `r`). Null without a diagnostic when the call's
// arguments aren't ones a frame takes.
std::unique_ptr<api::CallFrame> frame_for(const Module::Impl& impl, const std::string& function,
                                          const Module::Impl::Callable& c,
                                          const std::vector<ir::Parameter>& params,
                                          const BoundArguments& bound, CallResult& r) {
  Given g;
  const std::size_t n = c.sources.size();
  bool framed = true;  // false for arguments no frame takes
  auto frame = c.frames->take([&](const api::CallFrame& f) {
    for (std::size_t k = 0; k < n; ++k) {
      if (!given_input(c, k, params, bound, g, &f)) return framed = false;
      if (!f.fits(k, g.dtype, g.dims, g.rank)) return false;
    }
    return true;
  });
  if (frame || !framed) return frame;
  // New sizes: the inputs by name, checked once for every call to come.
  const ir::Graph& graph = *c.graph;
  std::map<std::string, runtime::Tensor> inputs;
  for (std::size_t k = 0; k < n; ++k) {
    if (!given_input(c, k, params, bound, g)) return nullptr;
    inputs.emplace(graph.nodes[static_cast<std::size_t>(graph.inputs[k])].name,
                   g.tensor ? *g.tensor
                   : g.host ? Module::Impl::to_runtime(*g.host)
                            : runtime::Tensor::zeros(runtime::DType::i32, {}));
  }
  return impl.new_frame(function, c, inputs, r);
}

// Each input into the frame's values: a value's tensor as it is, the
// host's borrowed (the last call's borrow again when it gives the same
// memory), dropout's seed written into the frame's scalar.
void place_inputs(const Module::Impl::Callable& c, const std::vector<ir::Parameter>& params,
                  const BoundArguments& bound, std::atomic<std::int64_t>& dropout_runs,
                  api::CallFrame& frame) {
  Given g;
  const ir::Graph& graph = *c.graph;
  for (std::size_t k = 0; k < c.sources.size(); ++k) {
    given_input(c, k, params, bound, g, &frame);
    if (!c.sources[k].field.empty() && frame.field[k] != g.tensor) {  // remembered
      frame.field[k] = g.tensor;
      frame.field_of[k] = bound[static_cast<std::size_t>(c.sources[k].param)].value;
    }
    runtime::Tensor& held = frame.held[k];
    runtime::Tensor& value = frame.graph.values[static_cast<std::size_t>(graph.inputs[k])];
    if (g.tensor) {
      value = *g.tensor;
    } else if (g.host) {
      const bool same = held.buffer() && held.raw() == g.host->data() &&
                        held.shape() == g.host->shape() && held.strides() == g.host->strides() &&
                        held.dtype() == g.dtype;
      if (!same && !held.reborrow(const_cast<void*>(g.host->data()), g.dtype, g.host->shape(),
                                  g.host->strides()))
        held = Module::Impl::to_runtime(*g.host);
      value = held;
    } else {
      if (!held.buffer() || held.buffer().use_count() > 1)
        held = runtime::Tensor::zeros(runtime::DType::i32, {});
      held.set(0, static_cast<double>(static_cast<std::int32_t>(dropout_runs.fetch_add(1))));
      value = held;
    }
  }
}

// The graph run in its frame: node by node, or whole by an executor that
// runs whole graphs (given the frame's inputs by name).
void run_in_frame(const ir::Graph& graph, const Module::Impl::Callable& c,
                  const runtime::Dims& dims, const runtime::GraphExecutor& executor,
                  api::CallFrame& frame) {
  if (c.whole) {
    for (std::size_t k = 0; k < frame.named_at.size(); ++k)
      *frame.named_at[k] = frame.graph.values[static_cast<std::size_t>(graph.inputs[k])];
    if (executor.run_whole(graph, frame.named, dims, nullptr, frame.graph.outputs)) return;
  }
  runtime::run_graph_in(graph, frame.graph, dims, &executor);
}

// A value as a tensor or number parameter takes it: a number for `int`
// and `float` (a tensor's first element), a scalar tensor for a tensor
// parameter given a number; anything else as it is.
runtime::Value as_parameter(runtime::Value v, const types::Type& want) {
  if (want.is(TKind::integer) || want.is(TKind::floating))
    return runtime::number(runtime::as_double(v), want.is(TKind::integer));
  if (want.is(TKind::tensor) && v.kind != RKind::tensor) {
    runtime::Value t = runtime::of_kind(RKind::tensor);
    t.tensor = runtime::Tensor::scalar(runtime::dtype_of(want.elem), runtime::as_double(v));
    return t;
  }
  return v;
}

// The runtime value an argument gives its parameter: a value's version, or
// the host's tensor (borrowed for the call) or number.
runtime::Value argument(const Bound& b, const types::Type& want) {
  if (b.value) return as_parameter(*b.value, want);
  const Arg& a = *b.arg;
  if (a.holds() == Arg::Holds::number)
    return as_parameter(runtime::number(a.number(), a.integer()), want);
  runtime::Value v = runtime::of_kind(RKind::tensor);
  v.tensor = Module::Impl::to_runtime(a.tensor());
  return as_parameter(std::move(v), want);
}

// A result as the host's value, named as the signature types it (an
// optimiser's model is only there): models and optimisers are remembered
// for hot reload, tensors and numbers are not.
Value result_value(const Module::Impl& impl, runtime::Value v, const types::Type& type,
                   const std::string& function) {
  const bool structure = v.kind == RKind::model || v.kind == RKind::optimizer;
  std::string name = type.name.empty() ? v.text : type.name;
  std::string optimizer = v.kind == RKind::optimizer ? type.opt_kind : "";
  Value out =
      ValueAccess::make(std::move(v), std::move(name), std::move(optimizer), "from " + function);
  return structure ? impl.keep(std::move(out)) : out;
}

// A function's result as values: one, or a tuple's items.
void result_values(const Module::Impl& impl, runtime::Value v, const types::Type& ret,
                   const std::string& function, std::vector<Value>& out) {
  if (v.kind != RKind::tuple) return out.push_back(result_value(impl, std::move(v), ret, function));
  for (std::size_t i = 0; i < v.items.size(); ++i)
    out.push_back(result_value(impl, std::move(v.items[i]),
                               i < ret.items.size() ? ret.items[i] : types::Type(), function));
}

// A device function's outputs as the value its signature returns.
runtime::Value assemble(const ir::Program& p, const types::Type& ret,
                        const std::vector<runtime::Tensor>& outputs, std::size_t& next) {
  const auto take = [&]() -> const runtime::Tensor& { return outputs.at(next++); };
  switch (ret.kind) {
    case TKind::model: {
      runtime::Value v = runtime::of_kind(RKind::model);
      v.text = ret.name;
      for (const auto& param : runtime::model_layout(p, ret.name)) v.fields[param.path] = take();
      return v;
    }
    case TKind::record:
    case TKind::batch: {
      runtime::Value v = runtime::of_kind(RKind::record);
      v.text = ret.name;
      for (const auto& [field, type] : p.records.at(ret.name)) v.fields[field] = take();
      return v;
    }
    case TKind::tuple: {
      runtime::Value v = runtime::of_kind(RKind::tuple);
      for (const auto& item : ret.items) v.items.push_back(assemble(p, item, outputs, next));
      return v;
    }
    case TKind::integer:
    case TKind::floating:
      return runtime::number(take().get(0), ret.is(TKind::integer));
    case TKind::none:
      return runtime::of_kind(RKind::none);
    default: {
      runtime::Value v = runtime::of_kind(RKind::tensor);
      v.tensor = take();
      return v;
    }
  }
}

// Copies a result into the host's buffer, or says why it can't.
std::string write_into(const runtime::Tensor& result, const Tensor& buffer, std::size_t k) {
  const std::string name = "output " + std::to_string(k + 1);
  if (static_cast<runtime::DType>(buffer.dtype()) != result.dtype() ||
      result.shape() != buffer.shape())
    return name + " is " + std::string(runtime::dtype_name(result.dtype())) + " " +
           runtime::shape_str(result.shape()) + ", given a buffer of " +
           runtime::dtype_name(static_cast<runtime::DType>(buffer.dtype())) + " " +
           runtime::shape_str(buffer.shape());
  if (runtime::Strides(buffer.strides()) != runtime::row_major_strides(result.shape()) ||
      (buffer.data() == nullptr && buffer.size() > 0))
    return name + "'s buffer isn't row-major memory of its shape";
  const runtime::Tensor packed = result.compact();
  std::memcpy(const_cast<void*>(buffer.data()), packed.raw(),
              static_cast<std::size_t>(result.size()) * runtime::dtype_size(result.dtype()));
  return "";
}

}  // namespace

std::string_view Module::Impl::runs_on(const std::string& function) const {
  if (const auto f = program.functions.find(function);
      f != program.functions.end() && f->second.controller)
    return "controller";
  return graphs_run_on();
}

std::string_view Module::Impl::graphs_run_on() const {
  if (devices) return "devices";
  if (!executor) return "reference";
  if (runtime::is_fast_executor(*executor)) return "fast";
  return executor->runs_whole_graphs() ? "cuda" : "reference";
}

CallResult Module::Impl::call_values(const std::string& function, const std::vector<Arg>& args,
                                     const std::map<std::string, Tensor>& named,
                                     const std::vector<Tensor>* into) const {
  if (auto empty = empty_module()) return failed_call(std::move(*empty));
  // Numerics::portable: the whole call (its inputs read, its results
  // written) under round to nearest without flush-to-zero, the host's
  // state put back after; the graph walks set it too.
  const runtime::FloatStateScope float_scope(executor && executor->portable_numerics()
                                                 ? runtime::kPortableFloatState
                                                 : runtime::float_state());
  if (!compiled->ok()) {
    CallResult r;
    r.diagnostics = compiled->diagnostics;
    return r;
  }
  const auto sig = program.functions.find(function);
  if (sig == program.functions.end() || sig->second.is_extern)
    return failed_call(diag::Code::E1604, "`" + function + "` isn't a function of this program",
                       api::unknown_function_help(compiled->typed, function, false));
  const bool controller = sig->second.controller;
  const bool with_values =
      controller || into || std::any_of(args.begin(), args.end(), [](const Arg& a) {
        return a.holds() != Arg::Holds::tensor;
      });
  if (with_values && !named.empty())
    return failed_call(diag::Code::E1603, "a call with values takes no named tensors",
                       "pass every parameter in order, or only host tensors with named ones");
  if (auto unsized = api::unsized_dims(*compiled); !unsized.empty()) {
    CallResult r;
    r.diagnostics = std::move(unsized);
    return r;
  }
  if (controller && into)
    return failed_call(diag::Code::E1603,
                       "`" + function + "` runs in the controller; its results come back as values",
                       "call it with Module::call");
  std::optional<runtime::MemoryBudget::Scope> budget;  // LoadOptions::memory_limit, this call
  runtime::MemoryBudget::hold(budget, load_options.memory_limit);
  // A device function was prepared at load: its graph serves every call.
  const auto prepared = callable.find(function);
  if (!controller && prepared == callable.end())
    return failed_call(runtime::internal_error("`" + function + "` wasn't prepared"));
  if (!with_values) {
    std::vector<Tensor> positional;
    for (const Arg& a : args) positional.push_back(a.tensor());
    return call_tensors(function, sig->second, prepared->second, positional, named);
  }

  // The `mut` values' writer locks first, then the versions every
  // argument reads: a `mut` value's is the latest, after any call before.
  WriterLocks locks(args);
  BoundArguments bound;
  if (auto bad = bind_arguments(program, serial, function, sig->second, args, bound))
    return failed_call(std::move(*bad));
  const auto& params = sig->second.params;

  CallResult r;
  if (controller) {
    std::vector<runtime::Value> in;
    for (std::size_t i = 0; i < params.size(); ++i)
      in.push_back(argument(bound[i], params[i].type));
    const auto print =
        load_options.print ? load_options.print : [log = log](std::string_view line) {
          if (!log) return;
          if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
          log->info("{}", line);
        };
    auto done = runtime::call_function(program, *compiled->map, function, std::move(in),
                                       run_options(print));
    if (!done.errors.empty()) {
      r.diagnostics = std::move(done.errors);
      return r;
    }
    if (sig->second.has_ret && done.result.kind != RKind::none)
      result_values(*this, std::move(done.result), sig->second.ret, function, r.values);
    std::vector<std::pair<std::size_t, std::shared_ptr<const runtime::Value>>> next;
    for (std::size_t i = 0; i < params.size() && i < done.finals.size(); ++i)
      if (params[i].is_mut && bound[i].state)
        next.emplace_back(i,
                          std::make_shared<const runtime::Value>(owned(std::move(done.finals[i]))));
    for (auto& [i, v] : next) bound[i].state->install(std::move(v), serial);
    return r;
  }

  // A device function: each argument's tensors as its graph's inputs, in
  // the frame for their shapes where it can have one.
  const Callable& c = prepared->second;
  const ir::Graph* graph = c.graph;
  std::unique_ptr<api::CallFrame> frame;
  if (c.framed && load_options.memory_limit <= 0) {
    frame = frame_for(*this, function, c, params, bound, r);
    if (!frame && !r.diagnostics.empty()) return r;
  }
  std::optional<std::vector<runtime::Tensor>> ran;
  std::optional<runtime::FrameMemory::Scope> planned;  // before `frame` goes
  if (frame) {
    place_inputs(c, params, bound, dropout_runs, *frame);
    if (!c.whole) planned.emplace(frame->memory);  // a whole graph's memory isn't the host's
    try {
      run_in_frame(*graph, c, compiled->typed.dims, *executor, *frame);
    } catch (const std::exception& e) {
      frame->graph.clear();
      frame->clear_named();
      return failed_call(run_failure(function, e));
    }
  } else {
    std::map<std::string, runtime::Tensor> inputs;
    const auto& fields = c.fields;
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (takes_tensor(params[i].type)) {
        inputs.emplace(params[i].name, runtime::as_tensor(argument(bound[i], params[i].type)));
        continue;
      }
      // A structure's tensors under the graph's names for them ("m.w1"),
      // read from the version in place.
      const runtime::Value& v = *bound[i].value;
      for (const auto& [path, input] : fields[i])
        if (const auto it = v.fields.find(path); it != v.fields.end())
          inputs.emplace(input, it->second);
    }
    ran = run_device(function, c, inputs, runtime::ArgumentSource::host, r);
    if (!ran) return r;
  }
  const std::vector<runtime::Tensor>& outputs = frame ? frame->graph.outputs : *ran;
  const std::size_t results = outputs.size() - graph->updated.size();
  if (into) {
    if (into->size() != results)
      return failed_call(diag::Code::E1603,
                         "`" + function + "` gives " + std::to_string(results) +
                             " results, given " + std::to_string(into->size()) + " output buffers",
                         "hand over one buffer per returned tensor");
    for (std::size_t k = 0; k < results; ++k)
      if (auto why = write_into(outputs[k], (*into)[k], k); !why.empty())
        return failed_call(diag::Code::E1603, why,
                           "hand over row-major buffers of the results' shapes and element types");
  } else if (sig->second.has_ret) {
    std::size_t next = 0;
    result_values(*this, assemble(program, sig->second.ret, outputs, next), sig->second.ret,
                  function, r.values);
  }
  // Each `mut` value's new version: its old tensors, the changed ones
  // replaced; all made before any is installed (memory may run out).
  std::vector<std::pair<std::size_t, std::shared_ptr<const runtime::Value>>> versions;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (!params[i].is_mut || !bound[i].state) continue;
    runtime::Value next = *bound[i].value;
    const std::string prefix = params[i].name + ".";
    for (std::size_t k = 0; k < graph->updated.size(); ++k)
      if (graph->updated[k].compare(0, prefix.size(), prefix) == 0)
        next.fields[graph->updated[k].substr(prefix.size())] = outputs[results + k];
    versions.emplace_back(i, std::make_shared<const runtime::Value>(owned(std::move(next))));
  }
  r.updated = graph->updated;
  for (auto& [i, v] : versions) bound[i].state->install(std::move(v), serial);
  if (frame) {  // its values dropped while its memory still watches, then kept
    frame->graph.clear();
    frame->clear_named();
    planned.reset();
    c.frames->give(std::move(frame));
  }
  return r;
}

}  // namespace ss
