// A loop's gradient is a loop run backwards. Its body is the forward body's
// vector-Jacobian product (append_vjp on a copy of the body), seeded by the
// carries' gradients, which it carries back a step at a time; a free value's
// gradient is summed over the steps in a carry of its own; a stacked
// input's comes out per step, stacked as the input was. What the backward
// body reads of the forward one is saved by the forward loop, once per step,
// as per-step results it didn't have before (inputs it can read again and
// values with no inputs are read or remade instead), so the forward runs
// once and the backward once.
#include <map>

#include "ir/attributes.hpp"
#include "ir/autodiff_rules.hpp"

namespace ss::ir::gradient {
namespace {

bool remade(Op op) {  // values a backward body makes again rather than save
  return op == Op::constant || op == Op::size || op == Op::fill || op == Op::literal ||
         op == Op::arange;
}

Node input_node(std::string name, Type type, diag::Span span) {
  Node n{.op = Op::input, .name = std::move(name), .type = std::move(type)};
  n.span = span;
  return n;
}

}  // namespace

std::vector<int> Rules::loop_rule(int i, int gy) {
  const Node n = node(i);  // a copy: adding nodes moves the vector
  span_ = n.span;
  const LoopShape shape = loop_of(n);
  const Graph& forward = *n.body;
  const std::size_t nc = shape.carries, ns = shape.stacked, nin = n.in.size();
  const std::size_t nout = forward.outputs.size();
  const auto role_of = [&](std::size_t k) { return k < nc ? 0 : k < nc + ns ? 1 : 2; };

  // Each output's adjoint: the loop's own, then its parts'.
  std::vector<int> gout(nout, -1);
  gout[0] = gy;
  bool any = gy >= 0;
  for (std::size_t j = static_cast<std::size_t>(i) + 1; j < adjoint.size(); ++j) {
    const Node& p = node(static_cast<int>(j));
    if (p.op != Op::loop_part || p.in[0] != i || adjoint[j] < 0) continue;
    int& a = gout[static_cast<std::size_t>(p.number)];
    a = a < 0 ? adjoint[j] : binary(Binary::add, a, adjoint[j], type(adjoint[j]));
    any = true;
  }
  if (!any) return {};

  // The forward body, then its gradient: seeded by every float carry (its
  // gradient is carried even when the last step's is zero) and by each
  // per-step result with an adjoint.
  Graph b = forward;
  const int nf = static_cast<int>(b.nodes.size());
  const auto body_type = [&](int x) { return b.nodes[static_cast<std::size_t>(x)].type; };
  std::vector<int> seed(nout, -1);
  std::vector<std::pair<int, int>> seeds;
  for (std::size_t k = 0; k < nout; ++k) {
    const int out = forward.outputs[k];
    if (!is_float(body_type(out)) || (k >= nc && gout[k] < 0)) continue;
    seed[k] =
        b.add(input_node("grad." + std::to_string(k), float_type(body_type(out).axes), n.span));
    seeds.emplace_back(out, seed[k]);
  }
  std::vector<int> wrt;
  std::vector<std::size_t> wrt_of;  // which loop input each wrt is
  for (std::size_t k = 0; k < nin; ++k) {
    const int x = forward.inputs[k];
    if (!is_float(body_type(x))) continue;
    if (k >= nc && !wanted(n.in[k])) continue;  // a carry's gradient is carried regardless
    wrt.push_back(x);
    wrt_of.push_back(k);
  }
  const std::vector<int> grads = append_vjp(b, seeds, wrt, dims_);
  std::vector<int> grad_of(nin, -1);
  for (std::size_t w = 0; w < wrt.size(); ++w) grad_of[wrt_of[w]] = grads[w];

  // The forward part of b: its first nf nodes (an inner loop among them now
  // saving for its own gradient), and the parts of such a loop that the
  // inner gradient added.
  const auto total = static_cast<int>(b.nodes.size());
  std::vector<bool> fwd(static_cast<std::size_t>(total), false);
  for (int u = 0; u < total; ++u) {
    const Node& node_u = b.nodes[static_cast<std::size_t>(u)];
    fwd[static_cast<std::size_t>(u)] = u < nf || (node_u.op == Op::loop_part && node_u.in[0] < nf);
  }
  const auto is_fwd = [&](int x) { return fwd[static_cast<std::size_t>(x)]; };
  // What the gradient reads of it.
  std::vector<bool> read(static_cast<std::size_t>(total), false);
  for (int u = 0; u < total; ++u)
    if (!is_fwd(u))
      for (const int x : b.nodes[static_cast<std::size_t>(u)].in)
        if (is_fwd(x)) read[static_cast<std::size_t>(x)] = true;
  for (const int g : grads)
    if (g >= 0 && is_fwd(g)) read[static_cast<std::size_t>(g)] = true;
  std::map<int, std::size_t> input_at;  // a forward body input: its loop input
  for (std::size_t k = 0; k < nin; ++k) input_at[forward.inputs[k]] = k;
  std::vector<int> saved;  // forward body nodes saved per step
  for (int x = 0; x < total; ++x) {
    if (!read[static_cast<std::size_t>(x)]) continue;
    const auto in = input_at.find(x);
    if (in != input_at.end() ? role_of(in->second) == 0
                             : !remade(b.nodes[static_cast<std::size_t>(x)].op))
      saved.push_back(x);
  }

  // The forward loop saves them: per-step results after its own.
  const Axis length = type(n.in[nc]).axes.at(static_cast<std::size_t>(shape.axes[0]));
  std::vector<int> saved_outer;
  if (!saved.empty()) {
    Graph with;
    with.name = forward.name;
    with.symbols = forward.symbols;
    with.batch = forward.batch;
    std::vector<int> renumber(static_cast<std::size_t>(total), -1);
    for (int u = 0; u < total; ++u) {
      if (!is_fwd(u)) continue;
      Node copy = b.nodes[static_cast<std::size_t>(u)];
      for (int& x : copy.in) x = renumber[static_cast<std::size_t>(x)];
      renumber[static_cast<std::size_t>(u)] = with.add(std::move(copy));
    }
    for (const int x : forward.inputs) with.inputs.push_back(renumber[static_cast<std::size_t>(x)]);
    for (const int x : forward.outputs)
      with.outputs.push_back(renumber[static_cast<std::size_t>(x)]);
    for (const int x : saved) with.outputs.push_back(renumber[static_cast<std::size_t>(x)]);
    Node& loop = node_mut(i);
    loop.body = std::make_shared<const Graph>(std::move(with));
    for (std::size_t s = 0; s < saved.size(); ++s) loop.ints.push_back(0);
    for (std::size_t s = 0; s < saved.size(); ++s) {
      Type t = body_type(saved[s]);
      t.axes.insert(t.axes.begin(), length);
      saved_outer.push_back(add({.op = Op::loop_part,
                                 .in = {i},
                                 .number = static_cast<double>(nout + s),
                                 .type = std::move(t)}));
    }
  }

  // The backward body: its inputs in the backward loop's order, then the
  // gradient's nodes, with what they read of the forward body remapped.
  Graph back;
  back.name = forward.name + " backward";
  back.symbols = forward.symbols;
  back.batch = forward.batch;
  std::map<int, int> map;  // b's node -> back's
  std::vector<int> carry_init, stacked_outer, free_outer;
  std::vector<std::int64_t> stacked_axes;
  const auto add_input = [&](const std::string& name, Type t) {
    const int id = back.add(input_node(name, std::move(t), n.span));
    back.inputs.push_back(id);
    return id;
  };
  // Carries: each float carry's gradient, then each free value's sum.
  std::vector<std::size_t> carried, summed;
  for (std::size_t k = 0; k < nc; ++k) {
    if (seed[k] < 0) continue;
    carried.push_back(k);
    map[seed[k]] = add_input("grad." + std::to_string(k), body_type(seed[k]));
    carry_init.push_back(gout[k] >= 0 ? gout[k] : zero(n.in[k]));
  }
  std::vector<int> sum_input;
  for (std::size_t k = nc + ns; k < nin; ++k) {
    if (grad_of[k] < 0) continue;
    summed.push_back(k);
    sum_input.push_back(add_input("sum." + std::to_string(k), float_type(type(n.in[k]).axes)));
    carry_init.push_back(zero(n.in[k]));
  }
  // Stacked: the forward's stacked inputs it reads, the saved values, the
  // per-step results' adjoints.
  for (std::size_t j = 0; j < ns; ++j) {
    const int x = forward.inputs[nc + j];
    if (!read[static_cast<std::size_t>(x)]) continue;
    map[x] = add_input("step." + std::to_string(j), body_type(x));
    stacked_outer.push_back(n.in[nc + j]);
    stacked_axes.push_back(shape.axes[j]);
  }
  for (std::size_t s = 0; s < saved.size(); ++s) {
    map[saved[s]] = add_input("saved." + std::to_string(s), body_type(saved[s]));
    stacked_outer.push_back(saved_outer[s]);
    stacked_axes.push_back(0);
  }
  for (std::size_t k = nc; k < nout; ++k) {
    if (seed[k] < 0) continue;
    map[seed[k]] = add_input("grad." + std::to_string(k), body_type(seed[k]));
    stacked_outer.push_back(gout[k]);
    stacked_axes.push_back(shape.result_axes[k - nc]);
  }
  // Frees it reads.
  for (std::size_t k = nc + ns; k < nin; ++k) {
    const int x = forward.inputs[k];
    if (!read[static_cast<std::size_t>(x)]) continue;
    map[x] = add_input("free." + std::to_string(k), body_type(x));
    free_outer.push_back(n.in[k]);
  }
  if (stacked_outer.empty()) {  // steps nothing of its own: step over a saved carry anyway
    const int x = forward.inputs[nc];
    map[x] = add_input("step.0", body_type(x));
    stacked_outer.push_back(n.in[nc]);
    stacked_axes.push_back(shape.axes[0]);
  }
  const auto mapped = [&](int x) {
    if (const auto it = map.find(x); it != map.end()) return it->second;
    Node copy = b.nodes[static_cast<std::size_t>(x)];  // a value remade: it has no inputs
    return map[x] = back.add(std::move(copy));
  };
  for (int u = nf; u < total; ++u) {
    if (map.count(u) || is_fwd(u)) continue;  // a seed, or the forward's
    Node copy = b.nodes[static_cast<std::size_t>(u)];
    for (int& x : copy.in) x = mapped(x);
    map[u] = back.add(std::move(copy));
  }
  const auto zeros_like = [&](int x) {
    Node z{.op = Op::fill, .number = 0, .type = float_type(back.nodes[x].type.axes)};
    z.span = n.span;
    return back.add(std::move(z));
  };
  // Outputs: the carries' gradients a step back, the sums, each stacked
  // input's gradient at this step.
  for (const std::size_t k : carried) {
    const int g = grad_of[k];
    back.outputs.push_back(g >= 0 ? mapped(g) : zeros_like(map.at(seed[k])));
  }
  for (std::size_t s = 0; s < summed.size(); ++s) {
    const int acc = sum_input[s], g = mapped(grad_of[summed[s]]);
    back.outputs.push_back(back.add({.op = Op::binary,
                                     .in = {acc, g},
                                     .sub = static_cast<int>(Binary::add),
                                     .type = back.nodes[static_cast<std::size_t>(acc)].type,
                                     .span = n.span}));
  }
  std::vector<std::size_t> stepped;
  for (std::size_t k = nc; k < nc + ns; ++k)
    if (grad_of[k] >= 0) {
      stepped.push_back(k);
      back.outputs.push_back(mapped(grad_of[k]));
    }
  if (back.outputs.empty()) return {};

  // The backward loop and its parts.
  std::vector<Type> out_types;
  for (std::size_t c = 0; c < carry_init.size(); ++c) out_types.push_back(type(carry_init[c]));
  for (const std::size_t k : stepped) out_types.push_back(float_type(type(n.in[k]).axes));
  Node loop{.op = Op::loop,
            .ints = {static_cast<std::int64_t>(carry_init.size()),
                     static_cast<std::int64_t>(stacked_outer.size()), shape.reverse ? 0 : 1},
            .type = out_types[0]};
  loop.in = carry_init;
  loop.in.insert(loop.in.end(), stacked_outer.begin(), stacked_outer.end());
  loop.in.insert(loop.in.end(), free_outer.begin(), free_outer.end());
  loop.ints.insert(loop.ints.end(), stacked_axes.begin(), stacked_axes.end());
  for (const std::size_t k : stepped) loop.ints.push_back(shape.axes[k - nc]);
  loop.body = std::make_shared<const Graph>(std::move(back));
  const int id = add(std::move(loop));
  std::vector<int> outputs = {id};
  for (std::size_t k = 1; k < out_types.size(); ++k)
    outputs.push_back(add(
        {.op = Op::loop_part, .in = {id}, .number = static_cast<double>(k), .type = out_types[k]}));
  std::vector<int> shares(nin, -1);
  std::size_t at = 0;
  for (const std::size_t k : carried) shares[k] = outputs[at++];
  for (const std::size_t k : summed) shares[k] = outputs[at++];
  for (const std::size_t k : stepped) shares[k] = outputs[at++];
  return shares;
}

}  // namespace ss::ir::gradient
