#include "ir/fused.hpp"

namespace ss::ir {

std::optional<FusedGradient> fused_gradient(Op op) {
  switch (op) {
    case Op::attention:
      return FusedGradient{Op::attention_grad, 3};
    case Op::max_pool:
      return FusedGradient{Op::max_pool_grad, 1};
    default:
      return std::nullopt;
  }
}

Graph gradient_body(const Node& n, std::size_t inputs, const DimSizes& dims) {
  Graph body = *n.body;
  body.name += "_grad";
  const int out = body.outputs.at(0);
  const int grad = body.add({.op = Op::input, .name = "dout", .type = n.type});
  body.inputs.push_back(grad);
  const std::vector<int> wrt(body.inputs.begin(),
                             body.inputs.begin() + static_cast<std::ptrdiff_t>(inputs));
  const std::vector<int> grads = append_vjp(body, {{out, grad}}, wrt, dims);
  for (const int g : grads)
    if (g < 0) throw std::logic_error("a fused node's input its value doesn't depend on");
  if (inputs == 1) {
    body.outputs = {grads[0]};
  } else {
    const types::Type& first = body.nodes[static_cast<std::size_t>(wrt[0])].type;
    std::vector<types::Axis> axes = {types::Axis::literal(static_cast<std::int64_t>(inputs))};
    axes.insert(axes.end(), first.axes.begin(), first.axes.end());
    body.outputs = {body.add({.op = Op::stack,
                              .in = grads,
                              .type = types::Type::tensor(axes, first.elem),
                              .span = n.span})};
  }
  merge_duplicates(body);
  drop_unused(body);
  return body;
}

}  // namespace ss::ir
