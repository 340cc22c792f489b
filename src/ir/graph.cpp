#include "ir/graph.hpp"

#include <cstdint>
#include <iterator>

#include <algorithm>
#include <sstream>

#include "ir/ops.hpp"

namespace ss::ir {

const char* op_name(Op op) {
  switch (op) {
    case Op::input:
      return "input";
    case Op::constant:
      return "constant";
    case Op::size:
      return "size";
    case Op::fill:
      return "fill";
    case Op::unary:
      return "unary";
    case Op::binary:
      return "binary";
    case Op::where:
      return "where";
    case Op::cast:
      return "cast";
    case Op::matmul:
      return "matmul";
    case Op::reduce:
      return "reduce";
    case Op::argmax:
      return "argmax";
    case Op::softmax:
      return "softmax";
    case Op::log_softmax:
      return "log_softmax";
    case Op::cross_entropy:
      return "cross_entropy";
    case Op::causal:
      return "causal";
    case Op::gather:
      return "gather";
    case Op::index:
      return "index";
    case Op::slice:
      return "slice";
    case Op::einops:
      return "einops";
    case Op::einsum:
      return "einsum";
    case Op::sort:
      return "sort";
    case Op::argsort:
      return "argsort";
    case Op::layer_norm:
      return "layer_norm";
    case Op::all_reduce:
      return "all_reduce";
    case Op::rms_norm:
      return "rms_norm";
    case Op::concat:
      return "concat";
    case Op::stack:
      return "stack";
    case Op::pad:
      return "pad";
    case Op::literal:
      return "literal";
    case Op::arange:
      return "arange";
    case Op::random:
      return "random";
    case Op::scatter_add:
      return "scatter_add";
    case Op::place:
      return "place";
    case Op::take_along:
      return "take_along";
  }
  return "?";
}

int Graph::add(Node node) {
  nodes.push_back(std::move(node));
  return static_cast<int>(nodes.size()) - 1;
}

namespace {

// The operation a unary, binary or reduce node applies, by name.
const char* sub_name(Op op, int sub) {
  static const char* const unary[] = {"neg",     "exp",  "log",  "sqrt",      "abs", "tanh",
                                      "sigmoid", "relu", "gelu", "gelu_grad", "not"};
  static const char* const binary[] = {"add",      "sub",     "mul",     "div", "pow", "mod",
                                       "floordiv", "maximum", "minimum", "lt",  "le",  "gt",
                                       "ge",       "eq",      "ne",      "and", "or"};
  static const char* const reduce[] = {"sum", "mean", "max", "min", "logsumexp", "var", "std"};
  static_assert(std::size(unary) == static_cast<std::size_t>(Unary::logical_not) + 1);
  static_assert(std::size(binary) == static_cast<std::size_t>(Binary::logical_or) + 1);
  static_assert(std::size(reduce) == static_cast<std::size_t>(Reduce::std) + 1);
  const auto at = static_cast<std::size_t>(sub);
  switch (op) {
    case Op::unary:
      return at < std::size(unary) ? unary[at] : "?";
    case Op::binary:
      return at < std::size(binary) ? binary[at] : "?";
    case Op::reduce:
      return at < std::size(reduce) ? reduce[at] : "?";
    default:
      return "";
  }
}

std::size_t arity(Op op) {
  switch (op) {
    case Op::einsum:
    case Op::concat:
    case Op::stack:
      return SIZE_MAX;
    case Op::input:
    case Op::constant:
    case Op::size:
    case Op::fill:
    case Op::literal:
    case Op::arange:
    case Op::random:
      return 0;
    case Op::binary:
    case Op::matmul:
    case Op::cross_entropy:
    case Op::gather:
    case Op::scatter_add:
    case Op::place:
    case Op::take_along:
      return 2;
    case Op::where:
      return 3;
    default:
      return 1;
  }
}

}  // namespace

std::string print(const Graph& g) {
  std::ostringstream out;
  out << "graph " << g.name << "(";
  for (std::size_t i = 0; i < g.inputs.size(); ++i) out << (i ? ", " : "") << "%" << g.inputs[i];
  out << ")\n";
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    out << "  %" << i << " = " << op_name(n.op);
    if (n.op == Op::unary || n.op == Op::binary || n.op == Op::reduce)
      out << "." << sub_name(n.op, n.sub);
    if (!n.name.empty()) out << " " << n.name;
    for (const int x : n.in) out << " %" << x;
    if (!n.axes.empty()) {
      out << " axes=";
      for (std::size_t k = 0; k < n.axes.size(); ++k) out << (k ? "," : "") << n.axes[k];
    }
    if (n.keep) out << " keep";
    if (n.op == Op::cross_entropy && n.sub == 1) out << " sum";
    if (n.op == Op::constant || n.op == Op::fill || n.op == Op::index || n.op == Op::pad)
      out << " " << n.number;
    for (const auto v : n.ints) out << " " << v;
    if (n.op == Op::einops || n.op == Op::einsum) {
      out << " ";
      for (std::size_t t = 0; t < n.groups_in.size(); ++t) {
        if (t) out << ", ";
        for (std::size_t a = 0; a < n.groups_in[t].size(); ++a) {
          const auto& group = n.groups_in[t][a];
          out << (a ? " " : "") << (group.size() == 1 ? "" : "(");
          for (std::size_t k = 0; k < group.size(); ++k) out << (k ? " " : "") << group[k];
          out << (group.size() == 1 ? "" : ")");
        }
      }
      out << " ->";
      for (const auto& group : n.groups_out) {
        out << " " << (group.size() == 1 ? "" : "(");
        for (std::size_t k = 0; k < group.size(); ++k) out << (k ? " " : "") << group[k];
        out << (group.size() == 1 ? "" : ")");
      }
    }
    out << " : " << n.type.str() << "\n";
  }
  out << "  return";
  const std::size_t results = g.outputs.size() - std::min(g.outputs.size(), g.updated.size());
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    out << " %" << g.outputs[i];
    if (i >= results) out << "->" << g.updated[i - results];
  }
  out << "\n";
  return out.str();
}

std::string verify(const Graph& g) {
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const std::string at = "%" + std::to_string(i) + " (" + op_name(n.op) + "): ";
    if (n.op == Op::random        ? n.in.size() > 1
        : arity(n.op) == SIZE_MAX ? n.in.empty()
                                  : n.in.size() != arity(n.op))
      return at + "takes " +
             (arity(n.op) == SIZE_MAX ? std::string("one or more") : std::to_string(arity(n.op))) +
             " inputs";
    for (const int x : n.in)
      if (x < 0 || x >= static_cast<int>(i))
        return at + "uses %" + std::to_string(x) + " before it is defined";
    if (!n.type.is_tensor()) return at + "has no tensor type";
    if ((n.op == Op::reduce || n.op == Op::argmax || n.op == Op::softmax ||
         n.op == Op::log_softmax || n.op == Op::cross_entropy || n.op == Op::index) &&
        n.axes.empty())
      return at + "names no axis";
    for (const auto a : n.axes) {
      const int shaped = n.op == Op::place ? n.in[1] : n.in[0];  // place: values may lack it
      const auto rank =
          static_cast<std::int64_t>(g.nodes[static_cast<std::size_t>(shaped)].type.axes.size());
      if (a < 0 || a >= rank)
        return at + "axis " + std::to_string(a) + " is outside its input's " + std::to_string(rank);
    }
  }
  for (const int x : g.inputs)
    if (x < 0 || x >= static_cast<int>(g.nodes.size()) ||
        g.nodes[static_cast<std::size_t>(x)].op != Op::input)
      return "input %" + std::to_string(x) + " is not an input node";
  for (const int x : g.outputs)
    if (x < 0 || x >= static_cast<int>(g.nodes.size()))
      return "output %" + std::to_string(x) + " doesn't exist";
  if (g.updated.size() > g.outputs.size()) return "more updated names than outputs";
  return {};
}

}  // namespace ss::ir
