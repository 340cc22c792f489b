#include "ir/conv_epilogue.hpp"

#include "ir/ops.hpp"

namespace ss::ir {
namespace {

using Kind = FusedStep::Kind;

bool is_binary(const FusedStep& s, Binary op) {
  return s.kind == Kind::binary && s.sub == static_cast<int>(op);
}

// The constant of one operand of binary step s, the other operand's step
// in *other; false where neither operand is a constant.
bool constant_operand(const std::vector<FusedStep>& steps, const FusedStep& s, float* value,
                      int* other) {
  for (const auto& [k, o] : {std::pair{s.a, s.b}, std::pair{s.b, s.a}}) {
    if (k >= 0 && steps[static_cast<std::size_t>(k)].kind == Kind::constant) {
      *value = steps[static_cast<std::size_t>(k)].value;
      *other = o;
      return true;
    }
  }
  return false;
}

// The loads a tree of adds from step `at` sums, into `leaves`; false where
// the tree has anything but adds and loads.
bool add_leaves(const std::vector<FusedStep>& steps, int at, std::vector<int>& leaves) {
  if (at < 0) return false;
  const FusedStep& s = steps[static_cast<std::size_t>(at)];
  if (s.kind == Kind::load) {
    leaves.push_back(s.a);
    return true;
  }
  return is_binary(s, Binary::add) && add_leaves(steps, s.a, leaves) &&
         add_leaves(steps, s.b, leaves);
}

// Whether node i is a forward convolution the executor runs on its own.
bool is_conv(const Graph& g, int i, const ConvDeferral& d) {
  const auto at = static_cast<std::size_t>(i);
  if (d.grouped_at[at] >= 0) return true;
  const Node& n = g.nodes[at];
  if (n.op != Op::einsum || n.in.size() != 2) return false;
  const auto w = static_cast<std::size_t>(n.in[0]);
  return d.deferred[w] && g.nodes[w].op == Op::window && d.grouped_at[at] < 0;
}

}  // namespace

ConvEpilogue conv_epilogue(const Graph& g, const FusedKernel& kernel, const ConvDeferral& d,
                           const std::vector<int>& uses) {
  ConvEpilogue e;
  const auto& steps = kernel.steps;
  if (kernel.reduce >= 0 || kernel.epilogue >= 0 || steps.empty()) return e;
  int top = static_cast<int>(steps.size()) - 1;
  const FusedStep& last = steps[static_cast<std::size_t>(top)];
  float value = 0;
  int other = -1;
  if (last.kind == Kind::unary && last.sub == static_cast<int>(Unary::relu)) {
    e.activation = ConvEpilogue::Activation::relu;
    top = last.a;
  } else if (is_binary(last, Binary::maximum) && constant_operand(steps, last, &value, &other) &&
             value == 0.0f) {
    e.activation = ConvEpilogue::Activation::relu;
    top = other;
  } else if (is_binary(last, Binary::minimum) && constant_operand(steps, last, &value, &other) &&
             other >= 0 && is_binary(steps[static_cast<std::size_t>(other)], Binary::maximum)) {
    const FusedStep& inner = steps[static_cast<std::size_t>(other)];
    float lo = 0;
    if (!constant_operand(steps, inner, &lo, &top) || !(lo <= value)) return {};
    e.activation = ConvEpilogue::Activation::clip;
    e.lo = lo;
    e.hi = value;
  }
  std::vector<int> leaves;
  if (!add_leaves(steps, top, leaves) || leaves.empty() || leaves.size() > 2) return {};
  const Node& root = g.nodes[static_cast<std::size_t>(kernel.root)];
  if (root.type.elem.kind != types::ElemKind::f32 || root.type.axes.empty()) return {};
  for (const int leaf : leaves) {
    const int node = kernel.inputs[static_cast<std::size_t>(leaf)];
    const Node& n = g.nodes[static_cast<std::size_t>(node)];
    if (n.type.elem.kind != types::ElemKind::f32) return {};
    const bool full = n.type.axes == root.type.axes;
    if (full && e.conv < 0 && uses[static_cast<std::size_t>(node)] == 1 && is_conv(g, node, d)) {
      e.conv = node;
    } else if (e.bias < 0 && n.type.axes.size() == 1 && n.type.axes[0] == root.type.axes.back()) {
      e.bias = node;
    } else {
      return {};
    }
  }
  if (e.conv < 0) return {};
  return e;
}

}  // namespace ss::ir
