#include "support/attention_forms.hpp"

namespace ss::test {

int count_ops(const ir::Graph& g, ir::Op op) {
  int n = 0;
  for (const auto& node : g.nodes) {
    if (node.op == op) ++n;
    if (node.op == ir::Op::loop) n += count_ops(*node.body, op);
  }
  return n;
}

ir::Graph node_alone(const ir::Graph& g, const ir::Node& n) {
  ir::Graph single;
  auto copy = n;
  copy.in.clear();
  for (const int x : n.in) {
    const int id = single.add({.op = ir::Op::input,
                               .name = "in" + std::to_string(copy.in.size()),
                               .type = g.nodes[static_cast<std::size_t>(x)].type});
    single.inputs.push_back(id);
    copy.in.push_back(id);
  }
  single.outputs = {single.add(copy)};
  return single;
}

}  // namespace ss::test
