#include "runtime/controller.hpp"

#include <cmath>
#include <map>
#include <optional>

#include "diag/codes.hpp"
#include "ir/lower.hpp"
#include "runtime/format.hpp"
#include "runtime/interpreter.hpp"
#include "runtime/reference/ops.hpp"

namespace ss::runtime {
namespace {

using check::Type;
using syntax::Expr;
using syntax::ExprKind;
using syntax::Stmt;
using syntax::StmtKind;

struct Value {
  enum class Kind { none, tensor, integer, floating, string, tuple, range, function };
  Kind kind = Kind::none;
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

struct Frame {
  std::map<std::string, Value> vars;
  bool breaking = false;
  std::optional<Value> returned;
};

class Controller {
 public:
  Controller(const check::TypedProgram& p, const syntax::SourceMap& map, const RunOptions& options)
      : p_(p), map_(map), options_(options) {}

  Value call(const std::string& name, std::vector<Value> args, syntax::Span at) {
    const auto& fn = p_.functions.at(name);
    if (fn.item->is_extern) unsupported("calling the host function `" + name + "`", at);
    Frame frame;
    for (std::size_t i = 0; i < args.size() && i < fn.item->params.size(); ++i)
      frame.vars[fn.item->params[i].name] = std::move(args[i]);
    if (fn.item->expr_body) return eval(*fn.item->expr_body, frame);
    block(fn.item->body, frame);
    return frame.returned.value_or(Value{});
  }

  std::string show(const Value& v) {
    switch (v.kind) {
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

  void block(const std::vector<Stmt>& stmts, Frame& f) {
    for (const auto& s : stmts) {
      if (f.breaking || f.returned) return;
      statement(s, f);
    }
  }

  void bind(const Expr& target, Value v, Frame& f) {
    if (target.kind != ExprKind::name) unsupported("changing a field", target.span);
    f.vars[target.text] = std::move(v);
  }

  void statement(const Stmt& s, Frame& f) {
    switch (s.kind) {
      case StmtKind::expr:
        (void)eval(*s.value, f);
        return;
      case StmtKind::assign: {
        Value v = eval(*s.value, f);
        if (s.targets.size() == 1) return bind(*s.targets[0], std::move(v), f);
        for (std::size_t i = 0; i < s.targets.size(); ++i) bind(*s.targets[i], v.items.at(i), f);
        return;
      }
      case StmtKind::return_:
        f.returned = s.value ? eval(*s.value, f) : Value{};
        return;
      case StmtKind::break_:
        f.breaking = true;
        return;
      case StmtKind::if_:
        block(truthy(eval(*s.value, f)) ? s.body : s.else_body, f);
        return;
      case StmtKind::for_: {
        const Value it = eval(*s.value, f);
        if (it.kind != Value::Kind::range) unsupported("looping over a dataset", s.value->span);
        for (std::int64_t i = it.lo; i < it.hi; ++i) {
          Value v;
          v.kind = Value::Kind::integer;
          v.number = static_cast<double>(i);
          f.vars[s.loop_var] = v;
          block(s.body, f);
          if (f.breaking) {
            f.breaking = false;
            break;
          }
          if (f.returned) return;
        }
        return;
      }
    }
  }

  static bool truthy(const Value& v) {
    if (v.kind == Value::Kind::tensor) return v.tensor.size() > 0 && v.tensor.get(0) != 0;
    return v.number != 0;
  }

  static bool is_number(const Type& t) {
    return t.is(Type::Kind::integer) || t.is(Type::Kind::floating);
  }

  Value number(double x, bool integer) {
    Value v;
    v.kind = integer ? Value::Kind::integer : Value::Kind::floating;
    v.number = integer ? std::trunc(x) : x;
    return v;
  }

  Value eval(const Expr& e, Frame& f) {
    const Type& type = p_.type_of(e);
    switch (e.kind) {
      case ExprKind::integer:
        return number(static_cast<double>(e.int_value), true);
      case ExprKind::floating:
        return number(e.float_value, false);
      case ExprKind::string: {
        Value v;
        v.kind = Value::Kind::string;
        v.text = e.text;
        return v;
      }
      case ExprKind::fstring:
        return fstring(e, f);
      case ExprKind::name: {
        if (auto it = f.vars.find(e.text); it != f.vars.end()) return it->second;
        if (auto it = p_.dims.find(e.text); it != p_.dims.end() && it->second)
          return number(static_cast<double>(*it->second), true);
        if (p_.functions.count(e.text)) {
          Value v;
          v.kind = Value::Kind::function;
          v.text = e.text;
          return v;
        }
        fail(diag::Code::E1508, e.span, "`" + e.text + "` is read before any binding of it ran",
             "not bound yet",
             "bind it on every path that reaches here (a loop's body may not run)");
      }
      case ExprKind::tuple: {
        Value v;
        v.kind = Value::Kind::tuple;
        for (const auto& item : e.items) v.items.push_back(eval(*item, f));
        return v;
      }
      case ExprKind::call: {
        const Expr& callee = *e.items[0];
        if (callee.kind == ExprKind::name) {
          const std::string& name = callee.text;
          if (name == "print") {
            std::string line;
            for (std::size_t i = 1; i < e.items.size(); ++i)
              line += (i > 1 ? " " : "") + show(eval(*e.items[i], f));
            if (options_.print) options_.print(line + "\n");
            return {};
          }
          if (name == "range") {
            Value v;
            v.kind = Value::Kind::range;
            const double a = eval(*e.items[1], f).number;
            if (e.items.size() == 2)
              v.hi = static_cast<std::int64_t>(a);
            else {
              v.lo = static_cast<std::int64_t>(a);
              v.hi = static_cast<std::int64_t>(eval(*e.items[2], f).number);
            }
            return v;
          }
          if (name == "shape") {
            const Value x = eval(*e.items[1], f);
            Value v;
            v.kind = Value::Kind::string;
            v.text = shape_str(x.tensor.shape());
            return v;
          }
          if (name == "load" || name == "save" || name == "write" || name == "len" ||
              p_.models.count(name) || name == "SGD" || name == "Adam" || name == "AdamW" ||
              name == "value_and_grad" || name == "grad" || name == "update")
            unsupported("`" + name + "`", e.span);
          if (const auto fn = p_.functions.find(name);
              fn != p_.functions.end() && fn->second.controller) {
            std::vector<Value> args;
            for (std::size_t i = 1; i < e.items.size(); ++i) args.push_back(eval(*e.items[i], f));
            return call(name, std::move(args), e.span);
          }
        }
        break;
      }
      default:
        break;
    }
    if (is_number(type) && (e.kind == ExprKind::binary || e.kind == ExprKind::unary))
      return arithmetic(e, type, f);
    return tensors(e, f);
  }

  Value arithmetic(const Expr& e, const Type& type, Frame& f) {
    if (e.kind == ExprKind::unary)
      return number(-eval(*e.items[0], f).number, type.is(Type::Kind::integer));
    const double a = eval(*e.items[0], f).number, b = eval(*e.items[1], f).number;
    const std::string& op = e.text;
    const bool integer = type.is(Type::Kind::integer);
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
      unsupported("`" + op + "` on numbers", e.span);
    return number(r, integer);
  }

  // Names an expression reads that the frame binds to a tensor or a number.
  void free_variables(const Expr& e, const Frame& f, std::map<std::string, Type>& out) {
    if (e.kind == ExprKind::name) {
      const auto it = f.vars.find(e.text);
      if (it != f.vars.end() &&
          (it->second.kind == Value::Kind::tensor || it->second.kind == Value::Kind::integer ||
           it->second.kind == Value::Kind::floating))
        out.emplace(e.text, p_.type_of(e));
      return;
    }
    for (std::size_t i = 0; i < e.items.size(); ++i) {
      if (e.kind == ExprKind::call && i == 0) continue;  // the callee
      if (e.items[i]) free_variables(*e.items[i], f, out);
    }
    for (const auto& kw : e.kwargs) free_variables(*kw.value, f, out);
  }

  Tensor as_tensor(const Value& v) {
    if (v.kind == Value::Kind::tensor) return v.tensor;
    return Tensor::scalar(v.kind == Value::Kind::integer ? DType::i32 : DType::f32, v.number);
  }

  // The expression as a graph, lowered once, run on the frame's values.
  Value tensors(const Expr& e, Frame& f) {
    std::map<std::string, Type> variables;
    free_variables(e, f, variables);
    auto cached = graphs_.find(&e);
    if (cached == graphs_.end()) {
      try {
        cached = graphs_.emplace(&e, ir::lower_expression(p_, e, variables)).first;
      } catch (const ir::NotLowered& failure) {
        unsupported(failure.what(), failure.span);
      }
    }
    std::map<std::string, Tensor> inputs;
    for (const auto& [name, type] : variables) inputs[name] = as_tensor(f.vars.at(name));
    std::vector<Tensor> outputs;
    try {
      outputs = run_graph(cached->second, inputs, p_.dims);
    } catch (const std::exception& failure) {
      if (auto d = program_failure(failure, map_, e.span)) throw Failure{std::move(*d)};
      throw;
    }
    const Type& type = p_.type_of(e);
    const auto to_value = [&](const Tensor& t, const Type& ty) {
      if (is_number(ty)) return number(t.get(0), ty.is(Type::Kind::integer));
      Value v;
      v.kind = Value::Kind::tensor;
      v.tensor = t;
      return v;
    };
    if (outputs.size() == 1 && !type.is(Type::Kind::tuple)) return to_value(outputs[0], type);
    Value v;
    v.kind = Value::Kind::tuple;
    for (std::size_t i = 0; i < outputs.size(); ++i)
      v.items.push_back(to_value(outputs[i], i < type.items.size() ? type.items[i] : Type{}));
    return v;
  }

  Value fstring(const Expr& e, Frame& f) {
    Value v;
    v.kind = Value::Kind::string;
    for (const auto& part : e.parts) {
      v.text += part.text;
      if (!part.expr) continue;
      const Value x = eval(*part.expr, f);
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
        unsupported("the format `" + part.spec + "`", part.expr->span);
      v.text += formatted;
    }
    return v;
  }

  const check::TypedProgram& p_;
  const syntax::SourceMap& map_;
  const RunOptions& options_;
  std::map<const Expr*, ir::Graph> graphs_;
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

std::vector<Diagnostic> run_function(const check::TypedProgram& program,
                                     const syntax::SourceMap& map, const std::string& function,
                                     const RunOptions& options) {
  Controller controller(program, map, options);
  try {
    const Value result = controller.call(function, {}, {});
    if (result.kind != Value::Kind::none && options.print)
      options.print(controller.show(result) + "\n");
  } catch (const Failure& failure) {
    return {failure.diagnostic};
  } catch (const std::exception& bug) {
    return {internal_error(bug.what())};
  }
  return {};
}

}  // namespace ss::runtime
