#include "support/lowered_graphs.hpp"

#include <cmath>

#include "ir/autodiff.hpp"
#include "lower/lower.hpp"

namespace ss::test {

using runtime::DType;
using runtime::Tensor;
using types::Factor;

std::vector<LoweredGraph> lowered_graphs(const CheckedProgram& program, bool gradients) {
  std::vector<LoweredGraph> out;
  for (const auto& entry : program.typed.functions) {
    if (entry.second.controller || entry.second.item->is_extern) continue;
    ir::Graph g;
    try {
      g = lower::lower_function(program.typed, entry.first);
    } catch (const lower::NotLowered&) {
      continue;
    }
    if (gradients) {
      // Only a float scalar has gradients; an input it doesn't depend on
      // has none (-1), so isn't an output.
      const int output = g.outputs.at(0);
      const auto& first = g.nodes[static_cast<std::size_t>(output)].type;
      if (!first.axes.empty() || !first.elem.is_float()) continue;
      std::vector<int> wrt;
      for (const int id : g.inputs)
        if (g.nodes[static_cast<std::size_t>(id)].type.elem.is_float()) wrt.push_back(id);
      std::vector<int> found;
      for (const int d : ir::append_gradients(g, output, wrt, program.typed.dims))
        if (d >= 0) found.push_back(d);
      if (found.empty()) continue;
      g.outputs = std::move(found);
    }
    out.push_back({entry.first, std::move(g)});
  }
  return out;
}

std::map<std::string, Tensor> made_up_inputs(const ir::Graph& g, const runtime::Dims& dims,
                                             std::int64_t generic, double scale) {
  const auto size_of = [&](const types::Axis& axis) {
    std::int64_t n = 1;
    for (const auto& f : axis.factors)
      n *= f.kind == Factor::Kind::literal ? f.value
           : f.kind == Factor::Kind::dim   ? dims.at(f.name).value()
                                           : generic;
    return n;
  };
  std::map<std::string, Tensor> out;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const auto& node = g.nodes[static_cast<std::size_t>(g.inputs[i])];
    runtime::Shape shape;
    for (const auto& axis : node.type.axes) shape.push_back(size_of(axis));
    const auto kind = node.type.elem.kind;
    const bool index = kind == types::ElemKind::index;
    const DType dtype = index || kind == types::ElemKind::i32 ? DType::i32
                        : kind == types::ElemKind::boolean    ? DType::boolean
                                                              : DType::f32;
    Tensor t = Tensor::zeros(dtype, shape);
    const std::int64_t bound = index ? size_of(*node.type.elem.index_of) : 0;
    for (std::int64_t k = 0; k < t.size(); ++k)
      t.set(k, index                     ? static_cast<double>((k * 2 + 1) % bound)
               : dtype == DType::boolean ? k % 3 == 0
                                         : scale * std::sin(0.77 * static_cast<double>(k) +
                                                            1.3 * static_cast<double>(i)));
    out[node.name] = t;
  }
  return out;
}

const ir::Graph* lowered_graph(const std::vector<LoweredGraph>& graphs,
                               const std::string& function) {
  for (const auto& g : graphs)
    if (g.function == function) return &g.graph;
  return nullptr;
}

}  // namespace ss::test
