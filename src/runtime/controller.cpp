#include "runtime/controller.hpp"

#include <cmath>
#include <exception>
#include <map>
#include <optional>

#include "diag/codes.hpp"
#include "ir/distribute.hpp"
#include "ir/lower.hpp"
#include "runtime/compiled_code.hpp"
#include "runtime/controller_ops.hpp"
#include "runtime/data_error.hpp"
#include "runtime/device_error.hpp"
#include "runtime/format.hpp"
#include "runtime/interpreter.hpp"
#include "runtime/reference/ops.hpp"
#include "runtime/value.hpp"
#include "support/scalar_arith.hpp"

namespace ss::runtime {
namespace {

using ir::HostInstr;
using ir::HostKind;
using ir::HostOp;

// A run-time failure, already a diagnostic.
struct Failure {
  Diagnostic diagnostic;
};

// A graph's output as the value the checker typed it.
Value from_output(const Tensor& t, HostKind kind) {
  if (kind == HostKind::integer || kind == HostKind::floating)
    return number(t.get(0), kind == HostKind::integer);
  Value v = of_kind(Value::Kind::tensor);
  v.tensor = t;
  return v;
}

}  // namespace

SsJitHostFn controller_code(const SsJitApi& api, const ir::HostFunction& fn,
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
  std::string error;
  const auto code = cached_code(api, controller_identity(api, steps), 1, compile, cache, &error);
  // Without code the function is interpreted, as without the JIT.
  return code ? reinterpret_cast<SsJitHostFn>(code->fns[0]) : nullptr;
}

namespace {

class Controller {
 public:
  Controller(const check::TypedProgram& p, const ir::HostProgram& code,
             const syntax::SourceMap& map, const RunOptions& options)
      : p_(p),
        code_(code),
        map_(map),
        options_(options),
        deadline_(options.time_limit.count() > 0
                      ? std::chrono::steady_clock::now() + options.time_limit
                      : std::chrono::steady_clock::time_point::max()) {}

  // Runs a controller function; `finals`, when given, gets its parameters'
  // values as it returned (for `mut` arguments).
  Value call(const std::string& name, std::vector<Value> args, syntax::Span at,
             std::vector<Value>* finals = nullptr) {
    const auto found = code_.find(name);
    if (found == code_.end()) {
      const auto fn = p_.functions.find(name);
      if (fn != p_.functions.end() && fn->second.item->is_extern)
        return call_host(name, fn->second, args, at);
      throw std::logic_error("no compact form of the controller function `" + name + "`");
    }
    const ir::HostFunction& fn = found->second;
    std::vector<Value> slots(fn.slots.size());
    for (std::size_t i = 0; i < args.size() && i < fn.params.size(); ++i)
      slots[static_cast<std::size_t>(fn.params[i])] = std::move(args[i]);
    Value result = run(fn, slots);
    if (finals)
      for (const int p : fn.params)
        finals->push_back(std::move(slots[static_cast<std::size_t>(p)]));
    return result;
  }

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

  [[noreturn]] void fail(diag::Code code, syntax::Span at, std::string message, std::string label,
                         std::string help = {}) {
    Diagnostic d = diag::error(code, std::move(message), std::move(help));
    d.labels.push_back(map_.label(at, std::move(label), true));
    d.location = d.labels.back().start;
    throw Failure{std::move(d)};
  }

  // What the reference runtime can't run yet: an error without a code.
  // E1609 once the run is past the host's time limit.
  void check_deadline(syntax::Span at) const {
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
  Value call_host(const std::string& name, const check::FunctionInfo& fn,
                  const std::vector<Value>& args, syntax::Span at) {
    if (!options_.call_host) unsupported("calling the host function `" + name + "`", at);
    const auto fail = [&](const std::string& why) -> Failure {
      Diagnostic d = diag::error(diag::Code::E1608, "the host function `" + name + "` " + why,
                                 "the host's function must return what its `extern fn` "
                                 "declares, or throw to fail the call");
      d.labels.push_back(map_.label(at, "called here", true));
      d.location = d.labels.back().start;
      return Failure{std::move(d)};
    };
    Value result;
    try {
      result = options_.call_host(name, args);
    } catch (const HostFunctionError& e) {
      throw fail(std::string("failed: ") + e.what());
    }
    const check::Type& want = fn.ret;
    // Numbers and strings: their kind was checked at load.
    if (want.is(check::Type::Kind::integer)) return number(result.number, true);
    if (!want.is_tensor()) return result;
    const Tensor& t = result.tensor;
    const DType dtype = dtype_of(want.elem);
    bool fits = result.kind == Value::Kind::tensor &&
                t.rank() == static_cast<std::int64_t>(want.axes.size()) && t.dtype() == dtype;
    for (std::size_t k = 0; fits && k < want.axes.size(); ++k)
      if (const auto size = size_of(want.axes[k], {}, p_.dims);
          size && *size != t.dim(static_cast<std::int64_t>(k)))
        fits = false;
    if (!fits)
      throw fail("returned a " + std::string(dtype_name(t.dtype())) + " tensor of shape " +
                 shape_str(t.shape()) + ", where its `extern fn` declares " + want.str());
    return result;
  }

  // What the checker accepted and the controller can't run: shapescript's
  // bug, not the program's (a load reports what lowering finds first).
  [[noreturn]] void unsupported(const std::string& what, syntax::Span at) {
    Diagnostic d = internal_error("the controller can't run " + what);
    d.labels.push_back(map_.label(at, "here", true));
    d.location = d.labels.back().start;
    throw Failure{std::move(d)};
  }

  // Runs a function: compiled (tier 1) when the JIT is there and compiles
  // it, else interpreted; the two share every instruction's work below.
  Value run(const ir::HostFunction& fn, std::vector<Value>& slots) {
    const SsJitHostFn compiled = compiled_function(fn);
    if (options_.on_call) options_.on_call(fn.name, compiled != nullptr);
    return compiled ? run_compiled(fn, slots, compiled) : interpret(fn, slots);
  }

  Value interpret(const ir::HostFunction& fn, std::vector<Value>& slots) {
    std::size_t pc = 0;
    while (pc < fn.code.size()) {
      const HostInstr& in = fn.code[pc];
      switch (in.op) {
        case HostOp::branch:
        case HostOp::loop_next:
          pc = test(fn, slots, pc) ? pc + 1 : static_cast<std::size_t>(in.target);
          break;
        case HostOp::jump:
          pc = static_cast<std::size_t>(in.target);
          break;
        case HostOp::ret: {
          Value out;
          exec(fn, slots, pc, &out);
          return out;
        }
        default:
          exec(fn, slots, pc++, nullptr);
      }
    }
    return of_kind(Value::Kind::none);
  }

  // A function's control flow as the JIT's steps: branches and loops ask
  // test(), jumps are the code's own, everything else is exec().
  SsJitHostFn compiled_function(const ir::HostFunction& fn) {
    if (!options_.jit) return nullptr;
    if (const auto it = compiled_.find(&fn); it != compiled_.end()) return it->second;
    return compiled_[&fn] = controller_code(*options_.jit, fn, options_.code_cache);
  }

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

  static std::int32_t exec_step(void* frame, std::int32_t pc) noexcept {
    auto& f = *static_cast<Frame*>(frame);
    try {
      f.self->exec(*f.fn, *f.slots, static_cast<std::size_t>(pc), &f.returned);
      return 0;
    } catch (...) {
      f.failure = std::current_exception();
      return 1;
    }
  }

  static std::int32_t test_step(void* frame, std::int32_t pc) noexcept {
    auto& f = *static_cast<Frame*>(frame);
    try {
      return f.self->test(*f.fn, *f.slots, static_cast<std::size_t>(pc)) ? 1 : 0;
    } catch (...) {
      f.failure = std::current_exception();
      return -1;
    }
  }

  Value run_compiled(const ir::HostFunction& fn, std::vector<Value>& slots, SsJitHostFn code) {
    static constexpr SsJitHostCallbacks callbacks = {&exec_step, &test_step};
    Frame frame{this, &fn, &slots, nullptr, of_kind(Value::Kind::none)};
    const std::int32_t status = code(&frame, &callbacks);
    if (status == 1) std::rethrow_exception(frame.failure);
    if (status != 0 && status != 2)
      throw std::logic_error("compiled controller code returned " + std::to_string(status));
    return status == 2 ? std::move(frame.returned) : of_kind(Value::Kind::none);
  }

  // A variable read before any binding of it ran is the program's error.
  void check_reads(const ir::HostFunction& fn, const std::vector<Value>& slots,
                   const HostInstr& in) {
    for (const auto& read : in.reads)
      if (slots[static_cast<std::size_t>(read.slot)].kind == Value::Kind::unbound)
        fail(diag::Code::E1508, read.span,
             "`" + fn.slots[static_cast<std::size_t>(read.slot)] +
                 "` is read before any binding of it ran",
             "not bound yet",
             "bind it on every path that reaches here (a loop's body may not run)");
  }

  // A branch's condition, or whether a loop goes round again (binding its
  // variable and counting) rather than ending.
  bool test(const ir::HostFunction& fn, std::vector<Value>& slots, std::size_t pc) {
    const HostInstr& in = fn.code[pc];
    check_deadline(in.span);
    check_reads(fn, slots, in);
    const auto at = [&](int s) -> Value& { return slots[static_cast<std::size_t>(s)]; };
    if (in.op == HostOp::branch) return truthy(at(in.args[0]));
    Value& counter = at(in.args[1]);
    const Value& iterable = at(in.args[0]);
    if (iterable.kind != Value::Kind::range) {  // a dataset's examples, or batches
      auto item = nth_item(iterable, counter.whole);
      if (!item) {
        if (options_.progress && iterable.kind == Value::Kind::batches)
          options_.progress(length(iterable), length(iterable));
        return false;
      }
      at(in.dst) = std::move(*item);
      counter.whole += 1;
      if (options_.progress && iterable.kind == Value::Kind::batches)
        options_.progress(counter.whole - 1, length(iterable));
      return true;
    }
    if (counter.whole >= iterable.hi) return false;
    at(in.dst) = counter;
    counter.whole += 1;
    return true;
  }

  // Every other instruction's work; `ret` puts the function's result in
  // *returned.
  void exec(const ir::HostFunction& fn, std::vector<Value>& slots, std::size_t pc,
            Value* returned) {
    const HostInstr& in = fn.code[pc];
    check_reads(fn, slots, in);
    const auto at = [&](int s) -> Value& { return slots[static_cast<std::size_t>(s)]; };
    switch (in.op) {
      case HostOp::constant:
        at(in.dst) = constant(in);
        break;
      case HostOp::dim: {
        const auto it = p_.dims.find(in.text);
        if (it == p_.dims.end() || !it->second)
          throw std::logic_error("the dim `" + in.text + "` has no size at run time");
        at(in.dst) = integer(*it->second);
        break;
      }
      case HostOp::copy:
        at(in.dst) = at(in.args[0]);
        break;
      case HostOp::graph:
        check_deadline(in.span);
        at(in.dst) = graph(fn, in, slots);
        break;
      case HostOp::arith:
        at(in.dst) = arithmetic(in, slots);
        break;
      case HostOp::call: {
        std::vector<Value> args, finals;
        for (const int a : in.args) args.push_back(at(a));
        at(in.dst) = call(in.text, std::move(args), in.span, in.writes.empty() ? nullptr : &finals);
        for (std::size_t i = 0; i < in.writes.size() && i < finals.size(); ++i)
          if (in.writes[i] >= 0) at(in.writes[i]) = std::move(finals[i]);
        break;
      }
      case HostOp::print: {
        std::string line;
        for (std::size_t i = 0; i < in.args.size(); ++i)
          line += (i ? " " : "") + show(at(in.args[i]));
        if (options_.print && holds_rank_zero()) options_.print(line + "\n");
        break;
      }
      case HostOp::format:
        at(in.dst) = format(in, slots);
        break;
      case HostOp::shape: {
        Value v = of_kind(Value::Kind::string);
        v.text = shape_str(at(in.args[0]).tensor.shape());
        at(in.dst) = std::move(v);
        break;
      }
      case HostOp::tuple: {
        Value v = of_kind(Value::Kind::tuple);
        for (const int a : in.args) v.items.push_back(at(a));
        at(in.dst) = std::move(v);
        break;
      }
      case HostOp::item:
        at(in.dst) = at(in.args[0]).items.at(static_cast<std::size_t>(in.number));
        break;
      case HostOp::range: {
        Value v = of_kind(Value::Kind::range);
        const auto bound = [&](int s) { return number_of(at(s)).i; };
        if (in.args.size() == 1) {
          v.hi = bound(in.args[0]);
        } else {
          v.lo = bound(in.args[0]);
          v.hi = bound(in.args[1]);
        }
        at(in.dst) = std::move(v);
        break;
      }
      case HostOp::loop_start: {
        const Value& range = at(in.args[0]);
        at(in.dst) = integer(range.kind == Value::Kind::range ? range.lo : 0);
        break;
      }
      case HostOp::ret:
        *returned = in.args.empty() ? of_kind(Value::Kind::none) : at(in.args[0]);
        break;
      case HostOp::branch:
      case HostOp::loop_next:
      case HostOp::jump:
        throw std::logic_error("a jump reached exec()");
      case HostOp::unsupported:
        if (in.code)  // the program's mistake, found by lowering (E1204)
          fail(*in.code, in.span, in.text, "here",
               *in.code == diag::Code::E1204
                   ? "differentiate a value computed from the model: a loss that uses its "
                     "parameters"
                   : "");
        unsupported(in.text, in.span);
      default:
        try {
          training(in, slots);
        } catch (const DataError& e) {
          Diagnostic d = diag::error(e.code, e.what(), e.help);
          d.labels.push_back(map_.label(in.span, "here", true));
          d.location = d.labels.back().start;
          throw Failure{std::move(d)};
        }
    }
  }

  static Value constant(const HostInstr& in) {
    switch (in.kind) {
      case HostKind::integer:
        return integer(in.whole);
      case HostKind::floating:
        return floating(in.number);
      case HostKind::string: {
        Value v = of_kind(Value::Kind::string);
        v.text = in.text;
        return v;
      }
      case HostKind::function: {
        Value v = of_kind(Value::Kind::function);
        v.text = in.text;
        return v;
      }
      default:
        return of_kind(Value::Kind::none);
    }
  }

  Value arithmetic(const HostInstr& in, const std::vector<Value>& slots) {
    const auto operand = [&](std::size_t k) {
      return number_of(slots[static_cast<std::size_t>(in.args[k])]);
    };
    const support::Number a = operand(0);
    const std::string& op = in.text;
    if (op == "neg") return checked(support::python_negate(a), op, in.span);
    const support::Number b = operand(1);
    if (const auto order = support::python_compare(op, a, b)) {
      Value v = of_kind(Value::Kind::tensor);
      v.tensor = Tensor::scalar(DType::boolean, *order ? 1 : 0);
      return v;
    }
    return checked(support::python_arith(op, a, b), op, in.span);
  }

  Value checked(const support::ArithResult& r, const std::string& op, syntax::Span at) {
    switch (r.error) {
      case support::ArithError::none:
        return number(r.value);
      case support::ArithError::division_by_zero:
        fail(diag::Code::E1509, at, "`" + op + "` divides by zero", "a zero divisor",
             "controller numbers follow Python: test the divisor first (`if n != 0:`)");
      case support::ArithError::overflow:
        fail(diag::Code::E1510, at, "`" + op + "` overflows 64 bits", "past 2^63 - 1",
             "controller integers are 64-bit: compute with floats (`2.0 ** 70`) past them");
      case support::ArithError::unknown_op:
        break;
    }
    unsupported("`" + op + "` on numbers", at);
  }

  // Runs a tensor expression's graph: its inputs read from the slots (a
  // structure's by path, "m.w1"), its results assembled as the checker
  // typed them, and the structures it changed (`mut`) written back.
  Value graph(const ir::HostFunction& fn, const HostInstr& in, std::vector<Value>& slots) {
    const ir::Graph& g = fn.graphs[static_cast<std::size_t>(in.target)];
    std::map<std::string, Tensor> inputs;
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      const std::string& name = g.nodes[static_cast<std::size_t>(g.inputs[i])].name;
      const Value& v = slots[static_cast<std::size_t>(in.args[i])];
      const auto dot = name.find('.');
      if (name == "$seed") {  // dropout's randomness: new at every run, the same every time
        inputs[name] = Tensor::scalar(DType::i32, static_cast<double>(dropout_runs_++));
        continue;
      }
      if (dot == std::string::npos) {
        if (v.kind == Value::Kind::integer && !support::fits_i32(v.whole))
          fail(diag::Code::E1510, in.span,
               (name[0] == '$' ? "an integer" : "`" + name + "`") + " is " +
                   std::to_string(v.whole) + ", past a tensor's i32",
               "used in this tensor expression",
               "tensor integers are i32 (at most 2147483647): keep larger numbers in the "
               "controller, or make them floats first (`n * 1.0`)");
        inputs[name] = as_tensor(v);
        continue;
      }
      const auto field = v.fields.find(name.substr(dot + 1));
      if (field == v.fields.end()) throw std::logic_error("no value for the graph input " + name);
      inputs[name] = field->second;
    }
    std::vector<Tensor> outputs;
    try {
      outputs = run(g, inputs);
    } catch (const std::exception& failure) {
      if (auto d = program_failure(failure, map_, in.span)) throw Failure{std::move(*d)};
      throw;
    }
    const std::size_t results = outputs.size() - g.updated.size();
    for (std::size_t k = 0; k < g.updated.size(); ++k) {
      const std::string& path = g.updated[k];
      slots[static_cast<std::size_t>(in.writes[k])].fields[path.substr(path.find('.') + 1)] =
          outputs[results + k];
    }
    std::size_t next = 0;
    const auto take = [&](HostKind kind, const std::string& model) {
      if (kind == HostKind::model) {  // a gradient: the model's tensors, in order
        Value v = of_kind(Value::Kind::model);
        v.text = model;
        for (const auto& param : model_layout(p_, model)) v.fields[param.path] = outputs.at(next++);
        return v;
      }
      if (kind == HostKind::none) return of_kind(Value::Kind::none);
      return from_output(outputs.at(next++), kind);
    };
    if (in.kind != HostKind::tuple) return take(in.kind, in.models.empty() ? "" : in.models[0]);
    Value v = of_kind(Value::Kind::tuple);
    for (std::size_t i = 0; i < in.items.size(); ++i)
      v.items.push_back(take(in.items[i], in.models[i]));
    return v;
  }

  // A graph on the workers when it has a batch to split, else here.
  std::vector<Tensor> run(const ir::Graph& g, const std::map<std::string, Tensor>& inputs) {
    if (!options_.devices || !has_split_input(g))
      return run_graph(g, inputs, p_.dims, nullptr, options_.accelerator);
    auto found = distributed_.find(&g);
    if (found == distributed_.end()) found = distributed_.emplace(&g, ir::distribute(g)).first;
    std::vector<WorkerStats> stats;
    auto outputs =
        options_.devices->run(found->second, inputs, p_.dims, options_.stats ? &stats : nullptr);
    if (options_.stats) options_.stats(g.name, stats);
    return outputs;
  }

  std::string resolve(const std::string& path) const {
    if (path.empty() || path[0] == '/' || options_.base_dir.empty()) return path;
    return options_.base_dir + "/" + path;
  }

  // `data |> map(f)`: f (a device function from one record to another) run
  // on each example; the results make a new dataset, in the same order.
  Value map_examples(const Value& data, const std::string& function, syntax::Span span) {
    const auto& fn = p_.functions.at(function);
    auto found = mapped_.find(function);
    if (found == mapped_.end()) {
      try {
        found = mapped_.emplace(function, ir::lower_function(p_, function)).first;
      } catch (const ir::NotLowered& failure) {
        unsupported(std::string(failure.what()) + " in `" + function + "`", failure.span);
      }
    }
    const ir::Graph& g = found->second;
    const std::string param = fn.item->params.at(0).name;
    const std::string record = fn.ret.name;
    const auto& fields = p_.records.at(record);
    std::vector<std::vector<double>> columns(fields.size());
    std::vector<Shape> shapes(fields.size());
    std::vector<DType> dtypes(fields.size(), DType::f32);
    const std::int64_t n = data.data ? data.data->size() : 0;
    for (std::int64_t k = 0; k < n; ++k) {
      std::map<std::string, Tensor> inputs;
      for (auto& [name, t] : data.data->batch(k, k + 1))
        inputs[param + "." + name] = t.select(0, 0);
      std::vector<Tensor> out;
      try {
        out = run_graph(g, inputs, p_.dims, nullptr, options_.accelerator);
      } catch (const std::exception& failure) {
        if (auto d = program_failure(failure, map_, span)) throw Failure{std::move(*d)};
        throw;
      }
      for (std::size_t f = 0; f < fields.size() && f < out.size(); ++f) {
        const auto values = out[f].values();
        columns[f].insert(columns[f].end(), values.begin(), values.end());
        shapes[f] = out[f].shape();
        dtypes[f] = out[f].dtype();
      }
    }
    auto mapped = std::make_shared<Dataset>();
    for (std::size_t f = 0; f < fields.size(); ++f) {
      Shape shape = shapes[f];
      shape.insert(shape.begin(), n);
      mapped->names.push_back(fields[f].first);
      mapped->columns.push_back(Tensor::from_values(dtypes[f], shape, columns[f]));
    }
    for (std::int64_t k = 0; k < n; ++k) mapped->rows.push_back(k);
    Value v = of_kind(Value::Kind::dataset);
    v.text = record;
    v.data = std::move(mapped);
    return v;
  }

  double number_in(const std::vector<Value>& slots, int slot) const {
    return as_double(slots[static_cast<std::size_t>(slot)]);
  }

  std::map<std::string, double> keywords(const HostInstr& in, const std::vector<Value>& slots) {
    std::map<std::string, double> out;
    for (const auto& part : in.parts) out[part.text] = number_in(slots, part.slot);
    return out;
  }

  // Models, optimisers, files, sinks and datasets.
  void training(const HostInstr& in, std::vector<Value>& slots) {
    const auto at = [&](int s) -> Value& { return slots[static_cast<std::size_t>(s)]; };
    switch (in.op) {
      case HostOp::model:
        at(in.dst) = new_model(
            p_, in.text,
            in.args.empty() ? 0 : static_cast<std::uint64_t>(number_in(slots, in.args[0])));
        return;
      case HostOp::optimizer: {
        auto opt = new_optimizer(in.text, at(in.args.at(0)), keywords(in, slots));
        if (!opt) unsupported("the optimiser `" + in.text + "`", in.span);
        at(in.dst) = std::move(*opt);
        return;
      }
      case HostOp::load: {
        const std::string path = resolve(at(in.args.at(0)).text);
        if (in.kind == HostKind::dataset)
          at(in.dst) = load_dataset_value(p_, in.text, path, options_.files);
        else if (in.kind == HostKind::model)
          at(in.dst) = load_model_value(p_, in.text, path, options_.files);
        else if (in.kind == HostKind::optimizer && !in.models.empty())
          at(in.dst) = load_optimizer_value(p_, in.text, in.models[0], path, options_.files);
        else
          unsupported("loading this kind of value", in.span);
        return;
      }
      case HostOp::save:
        if (holds_rank_zero())
          save_value(at(in.args.at(0)), resolve(at(in.args.at(1)).text), options_.files);
        return;
      case HostOp::write: {
        if (!holds_rank_zero()) return;
        SinkRecord record;
        for (const auto& part : in.parts)
          record.emplace_back(part.text, number_in(slots, part.slot));
        if (const auto sink = options_.sinks.find(in.text);
            sink != options_.sinks.end() && sink->second)
          sink->second(record);
        return;
      }
      case HostOp::pipe: {
        if (in.text == "map") {
          at(in.dst) = map_examples(at(in.args.at(0)), at(in.args.at(1)).text, in.span);
          return;
        }
        std::optional<double> positional;
        if (in.args.size() > 1) positional = number_in(slots, in.args[1]);
        if (in.text == "batches" && positional && *positional < 1)
          fail(diag::Code::E1402, in.span,
               "a batch size of " + std::to_string(static_cast<std::int64_t>(*positional)),
               "computed here", "give a batch size of 1 or more");
        const Value& data = at(in.args.at(0));
        at(in.dst) = pipe_stage(data, in.text, positional, keywords(in, slots), data.text);
        return;
      }
      case HostOp::len:
        at(in.dst) = integer(length(at(in.args.at(0))));
        return;
      case HostOp::set_field:
        at(in.dst).fields[in.text] = Tensor::scalar(DType::f32, number_in(slots, in.args.at(0)));
        return;
      default:
        throw std::logic_error(std::string("the controller can't run ") + ir::host_op_name(in.op));
    }
  }

  Value format(const HostInstr& in, const std::vector<Value>& slots) {
    Value v = of_kind(Value::Kind::string);
    for (const auto& part : in.parts) {
      v.text += part.text;
      if (part.slot < 0) continue;
      const Value& x = slots[static_cast<std::size_t>(part.slot)];
      if (part.spec.empty()) {
        v.text += show(x);
        continue;
      }
      const bool scalar = x.kind == Value::Kind::integer || x.kind == Value::Kind::floating ||
                          (x.kind == Value::Kind::tensor && x.tensor.size() == 1);
      std::string formatted;
      if (!scalar || !format_number(number_of(x), part.spec, &formatted))
        unsupported("the format `" + part.spec + "`", part.span);
      v.text += formatted;
    }
    return v;
  }

  std::int64_t dropout_runs_ = 0;
  std::map<std::string, ir::Graph> mapped_;            // map's functions, lowered once
  std::map<const ir::Graph*, ir::Graph> distributed_;  // each graph as the workers run it
  const check::TypedProgram& p_;
  const ir::HostProgram& code_;
  const syntax::SourceMap& map_;
  const RunOptions& options_;
  std::chrono::steady_clock::time_point deadline_;
  // Each function's compiled code, or null where it is interpreted.
  std::map<const ir::HostFunction*, SsJitHostFn> compiled_;
};

}  // namespace

std::optional<Diagnostic> program_failure(const std::exception& e, const syntax::SourceMap& map,
                                          syntax::Span at) {
  std::optional<Diagnostic> d;  // each branch gives it its code
  if (const auto* worker = dynamic_cast<const WorkerFailure*>(&e)) {
    const std::string where = "on worker " + worker->device + " (rank " +
                              std::to_string(worker->rank) + "), in its part of the batch";
    try {
      std::rethrow_exception(worker->cause);
    } catch (const CollectiveError& c) {
      d = diag::error(diag::Code::E1806, std::string("a collective failed: ") + c.what(),
                      "a worker that stops answering, a lost device or a failed communicator "
                      "ends the call; the next call starts the collectives afresh");
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

namespace {

// `function`'s parameters bound from the host's values by name: a tensor's
// shape and element type checked as a call's inputs are, a number given as
// a scalar. Throws Failure.
std::vector<Value> bind_arguments(const check::TypedProgram& program, const std::string& function,
                                  const std::map<std::string, Tensor>& args) {
  const auto& fn = program.functions.at(function);
  const auto fail = [&](diag::Code code, std::string message, std::string help) {
    throw Failure{diag::error(code, std::move(message), std::move(help))};
  };
  ir::Graph shapes;  // one input per tensor parameter, to check the given shapes
  std::map<std::string, Tensor> given;
  std::vector<Value> values;
  for (std::size_t i = 0; i < fn.params.size(); ++i) {
    const std::string& name = fn.item->params[i].name;
    const check::Type& type = fn.params[i];
    const auto it = args.find(name);
    if (it == args.end())
      fail(diag::Code::E1605, "`" + function + "` needs `" + name + "`, a " + type.str(),
           "give it with `--arg " + name + "=VALUE`");
    const Tensor& t = it->second;
    if (type.is(check::Type::Kind::tensor)) {
      ir::Node input{.op = ir::Op::input, .name = name, .type = type};
      shapes.inputs.push_back(shapes.add(std::move(input)));
      given[name] = t;
      Value v = of_kind(Value::Kind::tensor);
      v.tensor = t;
      values.push_back(std::move(v));
    } else if (type.is(check::Type::Kind::integer) || type.is(check::Type::Kind::floating)) {
      const bool integer = type.is(check::Type::Kind::integer);
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
  for (const auto& [name, tensor] : args) {
    bool known = false;
    for (const auto& param : fn.item->params) known = known || param.name == name;
    if (!known)
      fail(diag::Code::E1603, "`" + function + "` has no parameter `" + name + "`",
           "its parameters are named in its `fn` line");
  }
  try {
    (void)bind_sizes(shapes, given, program.dims);
  } catch (const InputMismatch& e) {
    fail(diag::Code::E1603, e.what(), kArgTypeHelp);
  }
  return values;
}

}  // namespace

std::vector<Diagnostic> run_function(const check::TypedProgram& program,
                                     const ir::HostProgram& code, const syntax::SourceMap& map,
                                     const std::string& function,
                                     const std::map<std::string, Tensor>& args,
                                     const RunOptions& options) {
  Controller controller(program, code, map, options);
  std::optional<MemoryBudget::Scope> budget;
  if (options.memory_limit > 0) {
    auto b = std::make_shared<MemoryBudget>();
    b->limit = options.memory_limit;
    budget.emplace(std::move(b));
  }
  try {
    const Value result = controller.call(function, bind_arguments(program, function, args), {});
    if (result.kind != Value::Kind::none && options.print) options.print(show(result) + "\n");
  } catch (const Failure& failure) {
    return {failure.diagnostic};
  } catch (const std::exception& bug) {
    return {internal_error(bug.what())};
  }
  return {};
}

}  // namespace ss::runtime
