#include "ir/averaged_axes.hpp"

#include "ir/ops.hpp"

namespace ss::ir {
namespace {

void add_generics(const types::Axis& axis, std::set<std::string>& out) {
  for (const auto& f : axis.factors)
    if (f.kind == types::Factor::Kind::generic) out.insert(f.name);
}

void collect(const Graph& g, std::set<std::string>& out) {
  for (const Node& n : g.nodes) {
    if (n.body) collect(*n.body, out);
    if (n.in.empty()) continue;
    const types::Type& in = g.nodes[static_cast<std::size_t>(n.in[0])].type;
    const auto axis = [&](std::int64_t k) -> const types::Axis* {
      return k >= 0 && k < static_cast<std::int64_t>(in.axes.size())
                 ? &in.axes[static_cast<std::size_t>(k)]
                 : nullptr;
    };
    if (n.op == Op::reduce) {
      const auto op = static_cast<Reduce>(n.sub);
      if (op != Reduce::mean && op != Reduce::var && op != Reduce::std) continue;
      for (const auto k : n.axes)
        if (const auto* a = axis(k)) add_generics(*a, out);
    } else if (n.op == Op::cross_entropy && n.sub == 0) {  // the mean over the other positions
      const std::int64_t classes = n.axes.empty() ? -1 : n.axes[0];
      for (std::int64_t k = 0; k < static_cast<std::int64_t>(in.axes.size()); ++k)
        if (k != classes) add_generics(*axis(k), out);
    } else if (n.op == Op::einops && n.name == "mean") {  // the input's axes the output drops
      std::set<std::string> kept;
      for (const auto& a : n.type.axes) add_generics(a, kept);
      std::set<std::string> all;
      for (const auto& a : in.axes) add_generics(a, all);
      for (const auto& name : all)
        if (!kept.count(name)) out.insert(name);
    }
  }
}

}  // namespace

std::set<std::string> averaged_axes(const Graph& graph) {
  std::set<std::string> out;
  collect(graph, out);
  return out;
}

}  // namespace ss::ir
