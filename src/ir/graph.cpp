#include "ir/graph.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <sstream>

#include "ir/attributes.hpp"
#include "ir/formulas.hpp"
#include "ir/ops.hpp"
#include "types/binary_functions.hpp"

namespace ss::ir {

namespace {

using enum OpInfo::Inputs;
using enum OpInfo::Axis;
using enum OpInfo::Gradient;
using enum OpInfo::Split;
constexpr const char* kRuns = nullptr;  // an executor's column: it runs the op

constexpr OpInfo kOps[] = {
#define SS_OP(op, inputs, axis, gradient, split, fast, cuda, standalone, attributes) \
  {#op, inputs, axis, gradient, split, fast, cuda, standalone, attributes},
#include "ir/ops.def"
#undef SS_OP
};
static_assert(std::size(kOps) == kOpCount);

}  // namespace

const OpInfo& op_info(Op op) {
  return kOps[static_cast<std::size_t>(op)];
}

const char* op_name(Op op) {
  return op_info(op).name;
}

std::optional<Op> op_named(std::string_view name) {
  for (std::size_t k = 0; k < kOpCount; ++k)
    if (name == op_name(static_cast<Op>(k))) return static_cast<Op>(k);
  return std::nullopt;
}

int Graph::add(Node node) {
  nodes.push_back(std::move(node));
  return static_cast<int>(nodes.size()) - 1;
}

namespace {

// Everything a node computes from, with its inputs as `in` (already
// renumbered): two nodes with the same key give the same values.
std::string node_key(const Node& n, const std::vector<int>& in) {
  std::ostringstream key;
  const auto bits = [](double x) {
    std::uint64_t u = 0;
    std::memcpy(&u, &x, sizeof u);
    return u;
  };
  key << static_cast<int>(n.op) << '|' << n.sub << '|' << n.keep << '|' << bits(n.number) << '|'
      << n.name << '|' << n.type.str()
      << '|'
      // a fused node's body is its attributes' composition: equal ones are
      // one, whoever made them
      << (n.op == Op::loop ? n.body.get() : nullptr) << "|in";
  for (const int x : in) key << ',' << x;
  key << "|axes";
  for (const auto a : n.axes) key << ',' << a;
  key << "|ints";
  for (const auto i : n.ints) key << ',' << i;
  key << "|values";
  for (const double v : n.values) key << ',' << bits(v);
  key << "|groups";
  for (const auto& operand : n.groups_in) {
    key << '(';
    for (const auto& group : operand) {
      key << '[';
      for (const auto& name : group) key << name << ' ';
      key << ']';
    }
    key << ')';
  }
  key << "->";
  for (const auto& group : n.groups_out) {
    key << '[';
    for (const auto& name : group) key << name << ' ';
    key << ']';
  }
  key << "|sizes";
  for (const auto& [name, axis] : n.sizes) key << ',' << name << '=' << axis.str();
  return key.str();
}

bool commutes(const Node& n) {
  if (n.op != Op::binary || n.in.size() != 2) return false;
  const auto b = static_cast<Binary>(n.sub);
  return b == Binary::add || b == Binary::mul || b == Binary::eq || b == Binary::ne;
}

}  // namespace

void merge_duplicates(Graph& g) {
  std::vector<int> same(g.nodes.size());  // each node's first equal
  std::map<std::string, int> first;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    for (int& x : n.in) x = same[static_cast<std::size_t>(x)];
    same[i] = static_cast<int>(i);
    if (n.op == Op::input) continue;
    std::vector<int> in = n.in;
    if (commutes(n) && in[1] < in[0]) std::swap(in[0], in[1]);
    const auto [at, fresh] = first.emplace(node_key(n, in), static_cast<int>(i));
    if (!fresh) same[i] = at->second;
  }
  for (int& o : g.outputs) o = same[static_cast<std::size_t>(o)];
}

void drop_unused(Graph& g) {
  const std::size_t count = g.nodes.size();
  std::vector<bool> live(count, false);
  for (const int o : g.outputs) live[static_cast<std::size_t>(o)] = true;
  for (const int i : g.inputs) live[static_cast<std::size_t>(i)] = true;
  for (std::size_t i = count; i-- > 0;)
    if (live[i])
      for (const int x : g.nodes[i].in) live[static_cast<std::size_t>(x)] = true;
  if (std::find(live.begin(), live.end(), false) == live.end()) return;
  std::vector<int> at(count, -1);
  std::vector<Node> kept;
  for (std::size_t i = 0; i < count; ++i) {
    if (!live[i]) continue;
    at[i] = static_cast<int>(kept.size());
    kept.push_back(std::move(g.nodes[i]));
    for (int& x : kept.back().in) x = at[static_cast<std::size_t>(x)];
  }
  g.nodes = std::move(kept);
  for (int& i : g.inputs) i = at[static_cast<std::size_t>(i)];
  for (int& o : g.outputs) o = at[static_cast<std::size_t>(o)];
}

namespace {

// The operation a unary, binary or reduce node applies, by name.
const char* sub_name(Op op, int sub) {
  static const char* const reduce[] = {"sum", "mean", "max", "min", "logsumexp", "var", "std"};
  static_assert(std::size(reduce) == static_cast<std::size_t>(Reduce::std) + 1);
  const auto at = static_cast<std::size_t>(sub);
  switch (op) {
    case Op::unary:
      return at < types::unary_functions().size() ? formula(Unary(sub)).name : "?";
    case Op::binary:
      return at < types::binary_functions().size() ? types::binary_functions()[at].name : "?";
    case Op::reduce:
      return at < std::size(reduce) ? reduce[at] : "?";
    default:
      return "";
  }
}

}  // namespace

std::string op_label(const Node& n) {
  std::string label = op_name(n.op);
  if (n.op == Op::unary || n.op == Op::binary || n.op == Op::reduce)
    label += std::string(".") + sub_name(n.op, n.sub);
  return label;
}

namespace {

void print_to(std::ostringstream& out, const Graph& g, const std::string& indent);

}  // namespace

std::string print(const Graph& g) {
  std::ostringstream out;
  print_to(out, g, "");
  return out.str();
}

namespace {

void print_to(std::ostringstream& out, const Graph& g, const std::string& indent) {
  out << indent << "graph " << g.name << "(";
  for (std::size_t i = 0; i < g.inputs.size(); ++i) out << (i ? ", " : "") << "%" << g.inputs[i];
  out << ")\n";
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    out << indent << "  %" << i << " = " << op_label(n);
    if (!n.name.empty()) out << " " << n.name;
    for (const int x : n.in) out << " %" << x;
    if (!n.axes.empty()) {
      out << " axes=";
      for (std::size_t k = 0; k < n.axes.size(); ++k) out << (k ? "," : "") << n.axes[k];
    }
    const bool attention = n.op == Op::attention || n.op == Op::attention_grad;
    if (n.keep) out << (attention ? " causal" : " keep");
    if (attention && n.sub == 1) out << " divide";
    if (n.op == Op::cross_entropy && n.sub == 1) out << " sum";
    if (n.op == Op::constant || n.op == Op::fill || n.op == Op::index || n.op == Op::pad ||
        n.op == Op::loop_part)
      out << " " << n.number;
    for (const auto v : n.ints) out << " " << v;
    if (n.op == Op::einops || n.op == Op::einsum || n.op == Op::attention ||
        n.op == Op::attention_grad) {
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
    if (n.body) print_to(out, *n.body, indent + "    ");
  }
  out << indent << "  return";
  const std::size_t results = g.outputs.size() - std::min(g.outputs.size(), g.updated.size());
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    out << " %" << g.outputs[i];
    if (i >= results) out << "->" << g.updated[i - results];
  }
  out << "\n";
}

// A loop's inputs against its body's, and its parts against its outputs.
std::string verify_loop(const Graph& g, std::size_t i) {
  const Node& n = g.nodes[i];
  if (n.op == Op::loop_part) {
    const Node& loop = g.nodes[static_cast<std::size_t>(n.in[0])];
    if (loop.op != Op::loop || !loop.body) return "reads a node that isn't a loop";
    const auto k = static_cast<std::size_t>(n.number);
    if (n.number < 1 || k >= loop.body->outputs.size()) return "names no output of its loop";
    return {};
  }
  if (!n.body) return "has no body";
  if (n.ints.size() < 3) return "needs its counts of carries and stacked inputs";
  const LoopShape shape = loop_of(n);
  if (n.ints.size() < 3 + shape.stacked) return "needs one axis per stacked input";
  if (shape.stacked == 0) return "has nothing to step over";
  if (shape.carries + shape.stacked > n.in.size()) return "has fewer inputs than it counts";
  const Graph& body = *n.body;
  if (body.inputs.size() != n.in.size()) return "has a body with another count of inputs";
  if (body.outputs.size() < shape.carries || body.outputs.empty())
    return "has a body without its carries' next values";
  if (shape.result_axes.size() != body.outputs.size() - shape.carries)
    return "needs one axis per per-step result";
  for (std::size_t k = 0; k < n.in.size(); ++k) {
    const types::Type& outer = g.nodes[static_cast<std::size_t>(n.in[k])].type;
    const types::Type& inner = body.nodes[static_cast<std::size_t>(body.inputs[k])].type;
    const bool stacked = k >= shape.carries && k < shape.carries + shape.stacked;
    if (stacked) {
      const auto axis = shape.axes[k - shape.carries];
      if (axis < 0 || axis >= static_cast<std::int64_t>(outer.axes.size()))
        return "steps over an axis its input lacks";
    }
    if (outer.axes.size() != inner.axes.size() + (stacked ? 1 : 0) || !(outer.elem == inner.elem))
      return "input " + std::to_string(k) + " doesn't fit its body's";
  }
  for (std::size_t k = 0; k < shape.carries; ++k) {
    const types::Type& carried = body.nodes[static_cast<std::size_t>(body.outputs[k])].type;
    const types::Type& given = g.nodes[static_cast<std::size_t>(n.in[k])].type;
    if (carried.axes.size() != given.axes.size() || !(carried.elem == given.elem))
      return "carry " + std::to_string(k) + " changes its type";
  }
  if (const std::string bad = verify(body); !bad.empty()) return "its body: " + bad;
  return {};
}

}  // namespace

std::string verify(const Graph& g) {
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const std::string at = "%" + std::to_string(i) + " (" + op_name(n.op) + "): ";
    const OpInfo& info = op_info(n.op);
    const bool inputs_fit = info.inputs == OpInfo::kAny ? !n.in.empty()
                            : info.inputs == OpInfo::kOptional
                                ? n.in.size() <= 1
                                : n.in.size() == static_cast<std::size_t>(info.inputs);
    if (!inputs_fit)
      return at + "takes " +
             (info.inputs == OpInfo::kAny        ? std::string("one or more")
              : info.inputs == OpInfo::kOptional ? std::string("at most one")
                                                 : std::to_string(info.inputs)) +
             " inputs";
    for (const int x : n.in)
      if (x < 0 || x >= static_cast<int>(i))
        return at + "uses %" + std::to_string(x) + " before it is defined";
    if (!n.type.is_tensor()) return at + "has no tensor type";
    if (info.axis != OpInfo::kNoAxis && n.axes.empty()) return at + "names no axis";
    if (info.axis == OpInfo::kAxis && n.axes.size() != 1) return at + "names more than one axis";
    if (n.op == Op::loop || n.op == Op::loop_part)
      if (const std::string bad = verify_loop(g, i); !bad.empty()) return at + bad;
    if ((n.op == Op::max_pool || n.op == Op::max_pool_grad) &&
        (!n.body || n.body->inputs.size() != n.in.size() || n.body->outputs.size() != 1))
      return at + "needs its composition as its body";
    if (n.op == Op::attention || n.op == Op::attention_grad) {
      const std::size_t least = n.op == Op::attention ? 3 : 4;
      if (n.in.size() != least && n.in.size() != least + 1) return at + "takes q, k, v, a scale";
      if (n.groups_in.size() != 3) return at + "needs q's, k's and v's names";
      if (!n.body || n.body->inputs.size() != n.in.size() || n.body->outputs.size() != 1)
        return at + "needs its composition as its body";
      if (const std::string bad = verify(*n.body); !bad.empty()) return at + "its body: " + bad;
    }
    if ((n.op == Op::window || n.op == Op::window_fold || n.op == Op::max_pool ||
         n.op == Op::max_pool_grad) &&
        n.ints.size() != 5 * n.axes.size())
      return at + "needs five ints (size, stride, dilation, before, after) per axis";
    for (const auto a : n.axes) {
      // place: the values may lack the axis; window_fold: they have more
      const int shaped = n.op == Op::place || n.op == Op::window_fold ? n.in[1] : n.in[0];
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
