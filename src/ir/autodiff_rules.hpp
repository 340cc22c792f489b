// Autodiff's rules, shared by its files: the Rules class that appends a
// node's gradient (autodiff.cpp: the walk and the one case per op;
// autodiff_rules.cpp: the longer rules; autodiff_builders.cpp: the nodes
// they are built of).
#pragma once

#include <algorithm>
#include <optional>
#include <set>
#include <vector>

#include "ir/autodiff.hpp"
#include "ir/ops.hpp"

namespace ss::ir::gradient {

using types::Axis;
using types::ElemKind;
using types::Factor;
using types::Type;

inline bool is_float(const Type& t) {
  return t.is_tensor() && t.elem.is_float();
}

// A float tensor of the given axes: the type of every gradient.
inline Type float_type(std::vector<Axis> axes) {
  return Type::tensor(std::move(axes), types::Elem{ElemKind::f32, {}, false});
}

class Rules {
 public:
  Rules(Graph& g, const DimSizes& dims) : g_(g), dims_(dims) {}

  // The adjoint of every node so far; -1 for none.
  std::vector<int> adjoint;
  // Which nodes need a gradient (on a path from a wrt to the output): a rule
  // may skip the share of an input that doesn't, rather than build it dead.
  std::vector<bool> needed;
  bool wanted(int i) const { return needed.empty() || needed[static_cast<std::size_t>(i)]; }

  // Adds `contribution` to the adjoint of node `x`.
  void accumulate(int x, int contribution);

  // The shares of node `i`'s gradient `gy` its inputs get: one per input,
  // -1 for an input with none.
  std::vector<int> apply(int i, int gy);

  // A loop's: the backward loop (autodiff_loop.cpp). It reads its parts'
  // adjoints too, and makes the loop save what the backward body reads.
  std::vector<int> loop_rule(int i, int gy);

 private:
  const Node& node(int i) const { return g_.nodes[static_cast<std::size_t>(i)]; }
  // A copy: adding nodes moves the vector the node's type lives in.
  Type type(int i) const { return node(i).type; }
  Type int_type(int i) const;

  int add(Node n);

  int constant(double value);

  int fill(double value, const Type& like);
  int zero(int like) { return fill(0, type(like)); }

  int unary(Unary op, int x);

  int binary(Binary op, int a, int b, const Type& t);

  // The wider of two operands' types, for their elementwise product.
  Type wider(int a, int b) const;
  int mul(int a, int b) { return binary(Binary::mul, a, b, wider(a, b)); }

  int compare(Binary op, int a, int b, const Type& t);

  int where(int c, int a, int b, const Type& t);

  // A reduction's type: the axes removed, or kept as size 1.
  int reduce(Reduce op, int x, const std::vector<std::int64_t>& axes, bool keep);

  std::vector<std::int64_t> all_axes(int x) const;

  // The number of elements of a tensor of `t`'s type, as a scalar node,
  // counted at run time (the sizes may be generic).
  int count(const Type& t);

  // `small`'s elements over `big`'s: 1/N for a mean over N.
  int ratio(const Type& small, const Type& big);

  // A gradient `g` of node `out`'s shape summed down to input `x`'s shape:
  // the leading axes broadcasting added, and the size-1 axes it stretched.
  int unbroadcast(int g, int out, int x);

  int unary_rule(Unary op, int x, int y, int g);

  std::vector<int> binary_rule(Binary op, const Node& n, int y, int g);

  // einsum by generated names: a [A.. k] @ b [k B..] = out [A.. B..].
  std::vector<int> matmul_rule(const Node& n, int g);

  // g with the reduced axes back, as size 1, when the reduction dropped them.
  int kept(const Node& n, int g);

  // g (keep-shaped) stretched to x's shape.
  int expand(int g, int x) { return binary(Binary::add, zero(x), g, type(x)); }

  int reduce_rule(const Node& n, int y, int g);

  // mean over the other positions of logsumexp - logits[label]:
  // (softmax - one_hot(label)) g / M.
  int cross_entropy_rule(const Node& n, int g);

  int norm_rule(const Node& n, int y, int g);

  std::optional<std::int64_t> static_size(const Axis& axis) const;

  std::vector<int> concat_rule(const Node& n, int g);

  // Each input's gradient: the product of the output's gradient, the other
  // inputs and ones shaped like it (so names only it has survive), summed
  // to its names.
  std::vector<int> einsum_rule(const Node& n, int g);

  // A fused node's (ir/fused.hpp): one gradient node, its body the chain's
  // gradient; with several inputs (attention's q, k, v), each share one part
  // of its stacked value.
  std::vector<int> fused_rule(const Node& n, int g);

  // The pattern run backwards: rearrange's inverse, repeat's is a sum, a
  // sum's is a repeat (a mean's scaled); a max's or min's gradient is shared
  // among the elements that reach the extreme, as `max(x, over=...)`'s is.
  int einops_rule(const Node& n, int y, int g);

  Node& node_mut(int i) { return g_.nodes[static_cast<std::size_t>(i)]; }

  Graph& g_;
  const DimSizes& dims_;
  diag::Span span_;
};

}  // namespace ss::ir::gradient
