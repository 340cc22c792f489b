// The compact controller form's printer and verifier.
#include <sstream>

#include "ir/host.hpp"

namespace ss::ir {
namespace {

const char* kind_name(HostKind kind) {
  switch (kind) {
    case HostKind::none:
      return "none";
    case HostKind::tensor:
      return "tensor";
    case HostKind::integer:
      return "int";
    case HostKind::floating:
      return "float";
    case HostKind::string:
      return "str";
    case HostKind::tuple:
      return "tuple";
    case HostKind::range:
      return "range";
    case HostKind::function:
      return "fn";
    case HostKind::model:
      return "model";
    case HostKind::optimizer:
      return "optimizer";
    case HostKind::dataset:
      return "dataset";
    case HostKind::batches:
      return "batches";
    case HostKind::record:
      return "record";
  }
  return "?";
}

std::string slot(const HostFunction& fn, int s) {
  std::string out = "$" + std::to_string(s);
  if (s >= 0 && s < static_cast<int>(fn.slots.size()) &&
      !fn.slots[static_cast<std::size_t>(s)].empty())
    out += "(" + fn.slots[static_cast<std::size_t>(s)] + ")";
  return out;
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else
      out += c;
  }
  return out + "\"";
}

}  // namespace

const char* host_op_name(HostOp op) {
  switch (op) {
    case HostOp::constant:
      return "const";
    case HostOp::dim:
      return "dim";
    case HostOp::copy:
      return "copy";
    case HostOp::graph:
      return "graph";
    case HostOp::arith:
      return "arith";
    case HostOp::call:
      return "call";
    case HostOp::print:
      return "print";
    case HostOp::format:
      return "format";
    case HostOp::shape:
      return "shape";
    case HostOp::tuple:
      return "tuple";
    case HostOp::item:
      return "item";
    case HostOp::range:
      return "range";
    case HostOp::loop_start:
      return "loop_start";
    case HostOp::loop_next:
      return "loop_next";
    case HostOp::branch:
      return "branch_unless";
    case HostOp::jump:
      return "jump";
    case HostOp::ret:
      return "return";
    case HostOp::unsupported:
      return "unsupported";
    case HostOp::model:
      return "model";
    case HostOp::optimizer:
      return "optimizer";
    case HostOp::load:
      return "load";
    case HostOp::save:
      return "save";
    case HostOp::write:
      return "write";
    case HostOp::pipe:
      return "pipe";
    case HostOp::len:
      return "len";
    case HostOp::set_field:
      return "set_field";
  }
  return "?";
}

std::string print(const HostFunction& fn) {
  std::ostringstream out;
  out << "controller " << fn.name << "(";
  for (std::size_t i = 0; i < fn.params.size(); ++i)
    out << (i ? ", " : "") << slot(fn, fn.params[i]);
  out << ")\n";
  for (std::size_t i = 0; i < fn.code.size(); ++i) {
    const HostInstr& in = fn.code[i];
    out << "  " << i << ": ";
    if (in.dst >= 0) out << slot(fn, in.dst) << " = ";
    out << host_op_name(in.op);
    switch (in.op) {
      case HostOp::constant:
        out << " " << kind_name(in.kind);
        if (in.kind == HostKind::integer)
          out << " " << in.whole;
        else if (in.kind == HostKind::floating)
          out << " " << in.number;
        else if (in.kind != HostKind::none)
          out << " " << quoted(in.text);
        break;
      case HostOp::dim:
      case HostOp::arith:
      case HostOp::call:
      case HostOp::model:
      case HostOp::optimizer:
      case HostOp::write:
      case HostOp::pipe:
      case HostOp::set_field:
        out << " " << in.text;
        break;
      case HostOp::load:
        out << " " << kind_name(in.kind) << " " << in.text;
        break;
      case HostOp::graph:
        out << " #" << in.target << " -> " << kind_name(in.kind);
        break;
      case HostOp::item:
        out << " " << in.number;
        break;
      case HostOp::unsupported:
        out << " " << quoted(in.text);
        break;
      default:
        break;
    }
    for (const int a : in.args) out << " " << slot(fn, a);
    for (const auto& part : in.parts) {
      out << " " << quoted(part.text);
      if (part.slot >= 0)
        out << " {" << slot(fn, part.slot) << (part.spec.empty() ? "" : ":" + part.spec) << "}";
    }
    if (in.op == HostOp::branch || in.op == HostOp::jump || in.op == HostOp::loop_next)
      out << " -> " << in.target;
    for (std::size_t w = 0; w < in.writes.size(); ++w)
      out << (w ? ", " : " => ") << slot(fn, in.writes[w]);
    out << "\n";
  }
  for (std::size_t g = 0; g < fn.graphs.size(); ++g) out << "#" << g << " " << print(fn.graphs[g]);
  return out.str();
}

std::string verify(const HostFunction& fn) {
  const int slots = static_cast<int>(fn.slots.size());
  const int code = static_cast<int>(fn.code.size());
  const auto bad_slot = [&](int s) { return s < 0 || s >= slots; };
  for (const int p : fn.params)
    if (bad_slot(p)) return fn.name + ": a parameter's slot is out of range";
  for (int i = 0; i < code; ++i) {
    const HostInstr& in = fn.code[static_cast<std::size_t>(i)];
    const std::string at = fn.name + " @" + std::to_string(i) + " (" + host_op_name(in.op) + "): ";
    for (const int a : in.args)
      if (bad_slot(a))
        return at + "reads slot " + std::to_string(a) + " of " + std::to_string(slots);
    for (const auto& r : in.reads)
      if (bad_slot(r.slot)) return at + "a variable read is out of range";
    for (const auto& part : in.parts)
      if (part.slot != -1 && bad_slot(part.slot))
        return at + "a format part's slot is out of range";
    const bool writes = in.op != HostOp::print && in.op != HostOp::branch &&
                        in.op != HostOp::jump && in.op != HostOp::ret &&
                        in.op != HostOp::unsupported && in.op != HostOp::save &&
                        in.op != HostOp::write;
    for (const int w : in.writes)
      if (bad_slot(w) && !(in.op == HostOp::call && w == -1))
        return at + "writes back to a slot out of range";
    if (in.op == HostOp::call && !in.writes.empty() && in.writes.size() != in.args.size())
      return at + "writes back a number of arguments other than it passes";
    if (writes && bad_slot(in.dst)) return at + "writes no valid slot";
    const bool jumps =
        in.op == HostOp::branch || in.op == HostOp::jump || in.op == HostOp::loop_next;
    if (jumps && (in.target < 0 || in.target > code)) return at + "jumps out of the function";
    std::size_t arity = in.args.size();
    switch (in.op) {
      case HostOp::copy:
      case HostOp::shape:
      case HostOp::item:
      case HostOp::loop_start:
      case HostOp::branch:
        if (arity != 1) return at + "takes one operand";
        break;
      case HostOp::loop_next:
        if (arity != 2) return at + "takes a range and a counter";
        break;
      case HostOp::range:
        if (arity != 1 && arity != 2) return at + "takes one or two operands";
        break;
      case HostOp::arith:
        if (arity != (in.text == "neg" ? 1u : 2u)) return at + "has the wrong number of operands";
        break;
      case HostOp::ret:
        if (arity > 1) return at + "returns more than one slot";
        break;
      case HostOp::graph: {
        if (in.target < 0 || in.target >= static_cast<int>(fn.graphs.size()))
          return at + "names no graph";
        const Graph& g = fn.graphs[static_cast<std::size_t>(in.target)];
        if (g.inputs.size() != arity) return at + "passes the wrong number of graph inputs";
        if (g.updated.size() != in.writes.size()) return at + "writes back the wrong number";
        break;
      }
      default:
        break;
    }
  }
  if (code == 0 || fn.code.back().op != HostOp::ret) return fn.name + ": doesn't end in a return";
  for (std::size_t g = 0; g < fn.graphs.size(); ++g)
    if (auto why = verify(fn.graphs[g]); !why.empty())
      return fn.name + " graph #" + std::to_string(g) + ": " + why;
  return {};
}

}  // namespace ss::ir
