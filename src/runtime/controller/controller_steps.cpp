#include "runtime/controller/controller_impl.hpp"

#include "diag/arithmetic.hpp"

namespace ss::runtime::control {

using ir::HostInstr;
using ir::HostKind;
using ir::HostOp;

// A branch's condition, or whether a loop goes round again (binding its
// variable and counting) rather than ending.
bool Controller::test(const ir::HostFunction& fn, std::vector<Value>& slots, std::size_t pc) {
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
        host_call("the progress callback",
                  [&] { options_.progress(length(iterable), length(iterable)); });
      return false;
    }
    at(in.dst) = std::move(*item);
    counter.whole += 1;
    if (options_.progress && iterable.kind == Value::Kind::batches)
      host_call("the progress callback",
                [&] { options_.progress(counter.whole - 1, length(iterable)); });
    return true;
  }
  if (counter.whole >= iterable.hi) return false;
  at(in.dst) = counter;
  counter.whole += 1;
  return true;
}

// Every other instruction's work; `ret` puts the function's result in
// *returned.
void Controller::exec(const ir::HostFunction& fn, std::vector<Value>& slots, std::size_t pc,
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
      if (options_.print && holds_rank_zero())
        host_call("the print callback", [&] { options_.print(line + "\n"); });
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
      if (in.code)  // the program's mistake, found by lowering (E1204); a load reports it first
        fail(*in.code, in.span, in.text, "here", in.help);
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

Value Controller::constant(const HostInstr& in) {
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

Value Controller::arithmetic(const HostInstr& in, const std::vector<Value>& slots) {
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

Value Controller::checked(const support::ArithResult& r, const std::string& op, diag::Span at) {
  if (r.ok()) return number(r.value);
  if (const auto mistake = diag::arithmetic_mistake(op, r.error))
    fail(mistake->code, at, mistake->message, mistake->label, mistake->help);
  unsupported("`" + op + "` on numbers", at);
}

Value Controller::format(const HostInstr& in, const std::vector<Value>& slots) {
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

}  // namespace ss::runtime::control
