#include "ir/fusion.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "ir/formulas.hpp"
#include "ir/ops.hpp"
#include "types/binary_functions.hpp"

namespace ss::ir {
namespace {

using types::ElemKind;

ElemKind kind_of(const Graph& g, int id) {
  return g.nodes[static_cast<std::size_t>(id)].type.elem.kind;
}

bool all_of_kind(const Graph& g, const Node& n, ElemKind k) {
  for (const int in : n.in)
    if (kind_of(g, in) != k) return false;
  return true;
}

// Whether a node is one step of a kernel: its operands' and result's
// element types as the kernels compute them.
bool is_step(const Graph& g, const Node& n) {
  const ElemKind out = n.type.elem.kind;
  switch (n.op) {
    case Op::unary:
      return static_cast<Unary>(n.sub) == Unary::logical_not
                 ? out == ElemKind::boolean && all_of_kind(g, n, ElemKind::boolean)
                 : out == ElemKind::f32 && all_of_kind(g, n, ElemKind::f32);
    case Op::binary: {
      const auto result = types::binary_result(n.sub);
      if (result == types::BinaryResult::logic)
        return out == ElemKind::boolean && all_of_kind(g, n, ElemKind::boolean);
      const bool comparison = result == types::BinaryResult::comparison;
      return out == (comparison ? ElemKind::boolean : ElemKind::f32) &&
             all_of_kind(g, n, ElemKind::f32);
    }
    case Op::where:
      return out == ElemKind::f32 && kind_of(g, n.in[0]) == ElemKind::boolean &&
             kind_of(g, n.in[1]) == ElemKind::f32 && kind_of(g, n.in[2]) == ElemKind::f32;
    default:
      return false;
  }
}

}  // namespace

std::vector<std::uint8_t> inner_broadcast(const Graph& g, const FusedKernel& kernel) {
  const auto& root_axes = g.nodes[static_cast<std::size_t>(kernel.root)].type.axes;
  std::vector<std::uint8_t> flags;
  // An inner axis written otherwise than the root's is still its size
  // unless it is 1 (the checker's broadcast: `[n 6]` beside `[n H]` for a
  // dim H of 6); one only known at run time to be 1 reads through a copy.
  for (const int in : kernel.inputs) {
    const auto& axes = g.nodes[static_cast<std::size_t>(in)].type.axes;
    flags.push_back(root_axes.empty() || axes.empty() ||
                    (!(axes.back() == root_axes.back()) && axes.back().is_literal(1)));
  }
  return flags;
}

std::vector<int> use_counts(const Graph& g) {
  std::vector<int> uses(g.nodes.size(), 0);
  for (const Node& n : g.nodes)
    for (const int in : n.in) ++uses[static_cast<std::size_t>(in)];
  for (const int o : g.outputs) uses[static_cast<std::size_t>(o)] += 2;  // never a member
  return uses;
}

bool epilogue_product(const Graph& g, const std::vector<int>& uses, std::size_t product,
                      const Node& reader) {
  const Node& m = g.nodes[product];
  return m.op == Op::matmul && uses[product] == 1 && m.type.axes == reader.type.axes &&
         g.nodes[static_cast<std::size_t>(m.in[1])].type.axes.size() == 2;
}

GemmEpilogue gemm_epilogue(const Graph& g, const FusedKernel& kernel) {
  using Kind = FusedStep::Kind;
  const auto& steps = kernel.steps;
  if (kernel.epilogue < 0 || steps.size() < 3 || steps.size() > 4) return {};
  int top = static_cast<int>(steps.size()) - 1;
  const bool relu =
      steps[top].kind == Kind::unary && steps[top].sub == static_cast<int>(Unary::relu);
  if (relu) top = steps[top].a;
  if (top < 0 || steps.size() != (relu ? 4u : 3u)) return {};
  const auto& add = steps[static_cast<std::size_t>(top)];
  if (add.kind != Kind::binary || add.sub != static_cast<int>(Binary::add)) return {};
  const auto load = [&](int s) {
    return s >= 0 && steps[static_cast<std::size_t>(s)].kind == Kind::load
               ? steps[static_cast<std::size_t>(s)].a
               : -1;
  };
  int product = load(add.a), bias = load(add.b);
  if (bias == kernel.epilogue) std::swap(product, bias);
  if (product != kernel.epilogue || bias < 0 || bias == product) return {};
  const int bias_node = kernel.inputs[static_cast<std::size_t>(bias)];
  if (g.nodes[static_cast<std::size_t>(bias_node)].type.axes.size() != 1) return {};
  return {kernel.inputs[static_cast<std::size_t>(product)], bias_node, relu};
}

GemmEpilogue gemm_epilogue(const Graph& g, std::size_t add, const std::vector<int>& uses) {
  const Node& n = g.nodes[add];
  if (n.op != Op::binary || n.sub != static_cast<int>(Binary::add) || n.in.size() != 2) return {};
  for (const int side : {0, 1}) {
    const auto product = static_cast<std::size_t>(n.in[static_cast<std::size_t>(side)]);
    const auto bias = static_cast<std::size_t>(n.in[static_cast<std::size_t>(1 - side)]);
    if (epilogue_product(g, uses, product, n) && g.nodes[bias].type.axes.size() == 1 &&
        product != bias)
      return {static_cast<int>(product), static_cast<int>(bias), false};
  }
  return {};
}

std::vector<FusedKernel> plan_fusion(const Graph& g) {
  const std::size_t count = g.nodes.size();
  const std::vector<int> uses = use_counts(g);
  std::vector<int> reader(count, -1);  // the last node to read each one
  for (std::size_t i = 0; i < count; ++i)
    for (const int in : g.nodes[i].in) reader[static_cast<std::size_t>(in)] = static_cast<int>(i);
  // The reduction a root may fuse with: its only reader, over trailing axes.
  const auto fusable_reduction = [&](std::size_t root) -> int {
    if (uses[root] != 1) return -1;
    const Node& u = g.nodes[static_cast<std::size_t>(reader[root])];
    if (u.op != Op::reduce || u.type.elem.kind != ElemKind::f32 || u.axes.empty()) return -1;
    const auto rank = static_cast<std::int64_t>(g.nodes[root].type.axes.size());
    std::vector<std::int64_t> axes = u.axes;
    std::sort(axes.begin(), axes.end());
    for (std::size_t k = 0; k < axes.size(); ++k)
      if (axes[k] != rank - static_cast<std::int64_t>(axes.size() - k)) return -1;
    return reader[root];
  };
  std::vector<bool> taken(count, false);  // a member of some kernel

  std::vector<FusedKernel> kernels;
  for (std::size_t r = count; r-- > 0;) {
    const Node& root = g.nodes[r];
    if (taken[r] || !is_step(g, root) || root.type.elem.kind != ElemKind::f32) continue;
    FusedKernel k;
    k.root = static_cast<int>(r);
    std::map<int, int> step_of;  // node -> its step
    int operations = 0;
    bool ok = true;
    const std::function<int(int)> emit = [&](int id) -> int {
      if (const auto it = step_of.find(id); it != step_of.end()) return it->second;
      const Node& n = g.nodes[static_cast<std::size_t>(id)];
      FusedStep step;
      const bool inside =
          id == k.root || (is_step(g, n) && uses[static_cast<std::size_t>(id)] == 1 &&
                           !taken[static_cast<std::size_t>(id)] && n.type.axes == root.type.axes);
      if (n.op == Op::constant && n.type.elem.kind == ElemKind::f32) {
        step.kind = FusedStep::Kind::constant;
        step.value = static_cast<float>(n.number);
      } else if (inside) {
        std::vector<int> operands;
        for (const int in : n.in) operands.push_back(emit(in));
        if (!ok) return -1;
        step.kind = n.op == Op::unary    ? FusedStep::Kind::unary
                    : n.op == Op::binary ? FusedStep::Kind::binary
                                         : FusedStep::Kind::where;
        step.sub = n.sub;
        step.a = operands.at(0);
        if (operands.size() > 1) step.b = operands[1];
        if (operands.size() > 2) step.c = operands[2];
        if (id != k.root) k.members.push_back(id);
        ++operations;
      } else if (n.type.elem.kind == ElemKind::f32 || n.type.elem.kind == ElemKind::boolean) {
        step.kind =
            n.type.elem.kind == ElemKind::f32 ? FusedStep::Kind::load : FusedStep::Kind::load_bool;
        step.a = static_cast<int>(k.inputs.size());
        k.inputs.push_back(id);
      } else {
        ok = false;  // an integer operand: not computed by a kernel
        return -1;
      }
      k.steps.push_back(step);
      return step_of[id] = static_cast<int>(k.steps.size()) - 1;
    };
    emit(k.root);
    k.reduce = fusable_reduction(r);
    // One operation alone is a kernel when it reduces, or when it is a
    // function the reference computes in double (exp, tanh, gelu, ...):
    // compiled, it runs as float32 vector math; else the executor's loop
    // is as fast.
    // So is one that reads a product only it reads (a layer's bias added):
    // the GEMM's epilogue, never the product stored whole.
    const bool function =
        root.op == Op::unary && formula(static_cast<Unary>(root.sub)).width == Formula::kDouble;
    for (std::size_t j = 0; ok && j < k.inputs.size() && k.reduce < 0; ++j) {
      if (epilogue_product(g, uses, static_cast<std::size_t>(k.inputs[j]), root)) {
        k.epilogue = static_cast<int>(j);
        break;
      }
    }
    if (!ok || operations < (k.reduce >= 0 || function || k.epilogue >= 0 ? 1 : 2)) continue;
    for (const int m : k.members) taken[static_cast<std::size_t>(m)] = true;
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace ss::ir

namespace ss::ir {

std::string print_fusion(const Graph& g, const std::vector<FusedKernel>& kernels) {
  return "graph " + g.name + ": " + std::to_string(kernels.size()) + " fused kernel" +
         (kernels.size() == 1 ? "" : "s") + "\n" + print_kernels(kernels);
}

std::string print_kernels(const std::vector<FusedKernel>& kernels) {
  std::string s;
  for (const auto& k : kernels) {
    s += "  kernel %" + std::to_string(k.root) + " computes";
    for (const int m : k.members) s += " %" + std::to_string(m);
    s += " reads";
    for (const int i : k.inputs) s += " %" + std::to_string(i);
    if (k.reduce >= 0) s += ", reduced by %" + std::to_string(k.reduce);
    if (k.epilogue >= 0) s += ", the epilogue of %" + std::to_string(k.inputs[k.epilogue]);
    s += "\n";
  }
  return s;
}

}  // namespace ss::ir
