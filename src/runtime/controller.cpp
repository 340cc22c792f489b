#include "runtime/controller.hpp"

#include <cmath>
#include <map>
#include <optional>

#include "diag/codes.hpp"
#include "runtime/format.hpp"
#include "runtime/interpreter.hpp"
#include "runtime/reference/ops.hpp"

namespace ss::runtime {
namespace {

using ir::HostInstr;
using ir::HostKind;
using ir::HostOp;

struct Value {
  enum class Kind { unbound, none, tensor, integer, floating, string, tuple, range, function };
  Kind kind = Kind::unbound;
  Tensor tensor;
  double number = 0;
  std::string text;
  std::vector<Value> items;
  std::int64_t lo = 0, hi = 0;  // range
};

// A run-time failure, already a diagnostic.
struct Failure {
  Diagnostic diagnostic;
};

Value number(double x, bool integer) {
  Value v;
  v.kind = integer ? Value::Kind::integer : Value::Kind::floating;
  v.number = integer ? std::trunc(x) : x;
  return v;
}

Value of_kind(Value::Kind kind) {
  Value v;
  v.kind = kind;
  return v;
}

bool truthy(const Value& v) {
  if (v.kind == Value::Kind::tensor) return v.tensor.size() > 0 && v.tensor.get(0) != 0;
  return v.number != 0;
}

Tensor as_tensor(const Value& v) {
  if (v.kind == Value::Kind::tensor) return v.tensor;
  return Tensor::scalar(v.kind == Value::Kind::integer ? DType::i32 : DType::f32, v.number);
}

// A graph's output as the value the checker typed it.
Value from_output(const Tensor& t, HostKind kind) {
  if (kind == HostKind::integer || kind == HostKind::floating)
    return number(t.get(0), kind == HostKind::integer);
  Value v = of_kind(Value::Kind::tensor);
  v.tensor = t;
  return v;
}

std::string show(const Value& v) {
  switch (v.kind) {
    case Value::Kind::unbound:
    case Value::Kind::none:
      return "None";
    case Value::Kind::tensor:
      return format_tensor(v.tensor);
    case Value::Kind::integer:
      return std::to_string(static_cast<long long>(v.number));
    case Value::Kind::floating:
      return format_float(v.number, DType::f32);
    case Value::Kind::string:
      return v.text;
    case Value::Kind::tuple: {
      std::string out = "(";
      for (std::size_t i = 0; i < v.items.size(); ++i) out += (i ? ", " : "") + show(v.items[i]);
      return out + ")";
    }
    case Value::Kind::range:
      return "range(" + std::to_string(v.lo) + ", " + std::to_string(v.hi) + ")";
    case Value::Kind::function:
      return "<fn " + v.text + ">";
  }
  return "?";
}

class Controller {
 public:
  Controller(const check::TypedProgram& p, const ir::HostProgram& code,
             const syntax::SourceMap& map, const RunOptions& options)
      : p_(p), code_(code), map_(map), options_(options) {}

  Value call(const std::string& name, std::vector<Value> args, syntax::Span at) {
    const auto found = code_.find(name);
    if (found == code_.end()) {
      const auto fn = p_.functions.find(name);
      if (fn != p_.functions.end() && fn->second.item->is_extern)
        unsupported("calling the host function `" + name + "`", at);
      throw std::logic_error("no compact form of the controller function `" + name + "`");
    }
    const ir::HostFunction& fn = found->second;
    std::vector<Value> slots(fn.slots.size());
    for (std::size_t i = 0; i < args.size() && i < fn.params.size(); ++i)
      slots[static_cast<std::size_t>(fn.params[i])] = std::move(args[i]);
    return run(fn, slots);
  }

 private:
  [[noreturn]] void fail(diag::Code code, syntax::Span at, std::string message, std::string label,
                         std::string help = {}) {
    Diagnostic d = diag::error(code, std::move(message), std::move(help));
    d.labels.push_back(map_.label(at, std::move(label), true));
    d.location = d.labels.back().start;
    throw Failure{std::move(d)};
  }

  // What the reference runtime can't run yet: an error without a code.
  [[noreturn]] void unsupported(const std::string& what, syntax::Span at) {
    Diagnostic d;
    d.message = what + " isn't supported by the reference runtime yet";
    d.labels.push_back(map_.label(at, "not yet", true));
    d.location = d.labels.back().start;
    throw Failure{std::move(d)};
  }

  Value run(const ir::HostFunction& fn, std::vector<Value>& slots) {
    const auto at = [&](int s) -> Value& { return slots[static_cast<std::size_t>(s)]; };
    std::size_t pc = 0;
    while (pc < fn.code.size()) {
      const HostInstr& in = fn.code[pc++];
      for (const auto& read : in.reads)
        if (at(read.slot).kind == Value::Kind::unbound)
          fail(diag::Code::E1508, read.span,
               "`" + fn.slots[static_cast<std::size_t>(read.slot)] +
                   "` is read before any binding of it ran",
               "not bound yet",
               "bind it on every path that reaches here (a loop's body may not run)");
      switch (in.op) {
        case HostOp::constant:
          at(in.dst) = constant(in);
          break;
        case HostOp::dim: {
          const auto it = p_.dims.find(in.text);
          if (it == p_.dims.end() || !it->second)
            throw std::logic_error("the dim `" + in.text + "` has no size at run time");
          at(in.dst) = number(static_cast<double>(*it->second), true);
          break;
        }
        case HostOp::copy:
          at(in.dst) = at(in.args[0]);
          break;
        case HostOp::graph:
          at(in.dst) = graph(fn, in, slots);
          break;
        case HostOp::arith:
          at(in.dst) = arithmetic(in, slots);
          break;
        case HostOp::call: {
          std::vector<Value> args;
          for (const int a : in.args) args.push_back(at(a));
          at(in.dst) = call(in.text, std::move(args), in.span);
          break;
        }
        case HostOp::print: {
          std::string line;
          for (std::size_t i = 0; i < in.args.size(); ++i)
            line += (i ? " " : "") + show(at(in.args[i]));
          if (options_.print) options_.print(line + "\n");
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
          const auto bound = [&](int s) { return static_cast<std::int64_t>(at(s).number); };
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
          if (range.kind != Value::Kind::range) unsupported("looping over a dataset", in.span);
          at(in.dst) = number(static_cast<double>(range.lo), true);
          break;
        }
        case HostOp::loop_next: {
          Value& counter = at(in.args[1]);
          if (counter.number >= static_cast<double>(at(in.args[0]).hi)) {
            pc = static_cast<std::size_t>(in.target);
            break;
          }
          at(in.dst) = counter;
          counter.number += 1;
          break;
        }
        case HostOp::branch:
          if (!truthy(at(in.args[0]))) pc = static_cast<std::size_t>(in.target);
          break;
        case HostOp::jump:
          pc = static_cast<std::size_t>(in.target);
          break;
        case HostOp::ret:
          return in.args.empty() ? of_kind(Value::Kind::none) : at(in.args[0]);
        case HostOp::unsupported:
          unsupported(in.text, in.span);
      }
    }
    return of_kind(Value::Kind::none);
  }

  static Value constant(const HostInstr& in) {
    switch (in.kind) {
      case HostKind::integer:
      case HostKind::floating:
        return number(in.number, in.kind == HostKind::integer);
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
    const bool integer = in.kind == HostKind::integer;
    const double a = slots[static_cast<std::size_t>(in.args[0])].number;
    if (in.text == "neg") return number(-a, integer);
    const double b = slots[static_cast<std::size_t>(in.args[1])].number;
    const std::string& op = in.text;
    double r = 0;
    if (op == "+")
      r = a + b;
    else if (op == "-")
      r = a - b;
    else if (op == "*")
      r = a * b;
    else if (op == "/")
      r = a / b;
    else if (op == "**")
      r = std::pow(a, b);
    else if (op == "//")
      r = b == 0 ? 0 : std::floor(a / b);
    else if (op == "%")
      r = b == 0 ? 0 : a - std::floor(a / b) * b;
    else
      unsupported("`" + op + "` on numbers", in.span);
    return number(r, integer);
  }

  Value graph(const ir::HostFunction& fn, const HostInstr& in, const std::vector<Value>& slots) {
    const ir::Graph& g = fn.graphs[static_cast<std::size_t>(in.target)];
    std::map<std::string, Tensor> inputs;
    for (std::size_t i = 0; i < g.inputs.size(); ++i)
      inputs[g.nodes[static_cast<std::size_t>(g.inputs[i])].name] =
          as_tensor(slots[static_cast<std::size_t>(in.args[i])]);
    std::vector<Tensor> outputs;
    try {
      outputs = run_graph(g, inputs, p_.dims);
    } catch (const std::exception& failure) {
      if (auto d = program_failure(failure, map_, in.span)) throw Failure{std::move(*d)};
      throw;
    }
    if (outputs.size() == 1 && in.kind != HostKind::tuple) return from_output(outputs[0], in.kind);
    Value v = of_kind(Value::Kind::tuple);
    for (std::size_t i = 0; i < outputs.size(); ++i)
      v.items.push_back(
          from_output(outputs[i], i < in.items.size() ? in.items[i] : HostKind::tensor));
    return v;
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
      const double n = x.kind == Value::Kind::tensor ? x.tensor.get(0) : x.number;
      const bool integer = x.kind == Value::Kind::integer ||
                           (x.kind == Value::Kind::tensor && !is_float(x.tensor.dtype()));
      if (!scalar || !format_number(n, integer, part.spec, &formatted))
        unsupported("the format `" + part.spec + "`", part.span);
      v.text += formatted;
    }
    return v;
  }

  const check::TypedProgram& p_;
  const ir::HostProgram& code_;
  const syntax::SourceMap& map_;
  const RunOptions& options_;
};

}  // namespace

std::optional<Diagnostic> program_failure(const std::exception& e, const syntax::SourceMap& map,
                                          syntax::Span at) {
  Diagnostic d;
  if (const auto* split = dynamic_cast<const SplitMismatch*>(&e)) {
    d = diag::error(diag::Code::E0708, split->what(), "the given sizes must divide the axis");
    d.labels.push_back(map.label(split->span, "at run time", true));
  } else if (const auto* range = dynamic_cast<const reference::RangeError*>(&e)) {
    d = diag::error(diag::Code::E0509,
                    "the value " + std::to_string(range->value) + " is outside 0.." +
                        std::to_string(range->bound - 1),
                    "an Index[C] holds 0 to C-1: check the data, or clip before casting");
    d.labels.push_back(map.label(at, "here", true));
  } else {
    return std::nullopt;
  }
  d.location = d.labels.back().start;
  return d;
}

Diagnostic internal_error(const std::string& what) {
  Diagnostic d;
  d.message = "internal error: " + what;
  d.help = "this is a bug in shapescript, not in the program: please report it with the program";
  return d;
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
    fail(diag::Code::E1603, e.what(), "pass a tensor of the declared shape and element type");
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
