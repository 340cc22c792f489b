#include "ir/conv_deferral.hpp"

#include <optional>
#include <string>
#include <vector>

namespace ss::ir {
namespace {

using Names = std::vector<std::vector<std::string>>;

// Each name a group of its own.
Names singles(const std::vector<std::string>& names) {
  Names out;
  for (const auto& n : names) out.push_back({n});
  return out;
}

// Whether S, K, P and J are lowering's grouped convolution of a window with
// `spatial` window axes (lower_windows.cpp), letter for letter: S splits
// the window's channels (g c), K the kernel's outputs (g f), P contracts c
// and the window per group, J joins (g f). (A program's own einops and
// einsum of a window are any other chain, run as written.)
bool lowered_grouped_conv(const Node& s, const Node& k, const Node& p, const Node& j,
                          std::size_t spatial) {
  if (s.groups_in.size() != 1 || k.groups_in.size() != 1 || p.groups_in.size() != 2 ||
      j.groups_in.size() != 1)
    return false;
  const Names& window = s.groups_in[0];
  const std::size_t rank = window.size();  // the image's axes, then the window's
  if (rank < spatial + 2) return false;
  const std::size_t at = rank - spatial - 1;  // the channels (g c)
  if (window[at].size() != 2) return false;
  const std::string g = window[at][0], c = window[at][1];
  std::vector<std::string> outer, js;
  for (std::size_t i = 0; i < rank; ++i) {
    if (i == at) continue;
    if (window[i].size() != 1) return false;
    (i < at ? outer : js).push_back(window[i][0]);
  }
  if (k.groups_in[0].size() != spatial + 2 || k.groups_in[0].back().size() != 2 ||
      k.groups_in[0].back()[0] != g)
    return false;
  const std::string f = k.groups_in[0].back()[1];
  std::vector<std::string> s_out = outer, k_in = js, k_out = js, p_out = outer, j_out = outer;
  s_out.insert(s_out.end(), {g, c});
  s_out.insert(s_out.end(), js.begin(), js.end());
  k_in.push_back(c);
  k_out.insert(k_out.end(), {c, g, f});
  p_out.insert(p_out.end(), {g, f});
  Names k_expected = singles(k_in), j_expected = singles(j_out);
  k_expected.push_back({g, f});
  j_expected.push_back({g, f});
  return s.groups_out == singles(s_out) && k.groups_in[0] == k_expected &&
         k.groups_out == singles(k_out) && p.groups_in[0] == singles(s_out) &&
         p.groups_in[1] == singles(k_out) && p.groups_out == singles(p_out) &&
         j.groups_in[0] == singles(p_out) && j.groups_out == j_expected;
}

// The grouped convolution whose join is node j, if it is one: each link
// read once, nothing of it fused, the image's window over two axes, the
// chain lowering's letter for letter.
std::optional<GroupedConv> grouped_conv(const Graph& g, std::size_t j, const std::vector<int>& uses,
                                        const std::function<bool(std::size_t)>& fused) {
  const auto node = [&](int i) -> const Node& { return g.nodes[static_cast<std::size_t>(i)]; };
  const auto once = [&](int i) { return uses[static_cast<std::size_t>(i)] == 1 && !fused(i); };
  const Node& join = g.nodes[j];
  if (join.op != Op::einops || join.in.size() != 1 || fused(j) ||
      join.type.elem.kind != types::ElemKind::f32 || !join.sizes.count("g"))
    return std::nullopt;
  GroupedConv c;
  c.join = static_cast<int>(j);
  c.product = join.in[0];
  const Node& p = node(c.product);
  if (p.op != Op::einsum || p.in.size() != 2 || p.in[0] == p.in[1] || !once(c.product))
    return std::nullopt;
  c.split_image = p.in[0];
  c.split_kernel = p.in[1];
  const Node& s = node(c.split_image);
  const Node& k = node(c.split_kernel);
  if (s.op != Op::einops || k.op != Op::einops || s.in.size() != 1 || k.in.size() != 1 ||
      !s.sizes.count("g") || !k.sizes.count("g") || !once(c.split_image) || !once(c.split_kernel))
    return std::nullopt;
  c.window = s.in[0];
  const Node& w = node(c.window);
  if (w.op != Op::window || !once(c.window) || w.axes.size() != 2 || w.axes.front() == 0 ||
      !lowered_grouped_conv(s, k, p, join, w.axes.size()))
    return std::nullopt;
  return c;
}

}  // namespace

ConvDeferral plan_conv_deferral(const Graph& g, const std::function<bool(std::size_t)>& fused) {
  const std::size_t count = g.nodes.size();
  ConvDeferral d;
  d.deferred.assign(count, false);
  d.read_at.resize(count);
  for (std::size_t i = 0; i < count; ++i) d.read_at[i] = static_cast<int>(i);
  // Windows read only by two-operand einsums, not outputs.
  std::vector<int> last_einsum(count, -1);
  std::vector<bool> other_reader(count, false);
  for (std::size_t i = 0; i < count; ++i) {
    const Node& n = g.nodes[i];
    const bool pair = n.op == Op::einsum && n.in.size() == 2 && n.in[0] != n.in[1];
    for (const int x : n.in) {
      if (pair)
        last_einsum[static_cast<std::size_t>(x)] = static_cast<int>(i);
      else
        other_reader[static_cast<std::size_t>(x)] = true;
    }
  }
  for (const int o : g.outputs) other_reader[static_cast<std::size_t>(o)] = true;
  std::vector<int> uses(count, 0);
  for (const Node& n : g.nodes)
    for (const int x : n.in) ++uses[static_cast<std::size_t>(x)];
  for (const int o : g.outputs) uses[static_cast<std::size_t>(o)] += 2;
  d.grouped_at.assign(count, -1);
  for (std::size_t j = 0; j < count; ++j) {
    const auto chain = grouped_conv(g, j, uses, fused);
    if (!chain) continue;
    d.grouped_at[j] = static_cast<int>(d.grouped.size());
    d.grouped.push_back(*chain);
    for (const int x : {chain->window, chain->split_image, chain->split_kernel, chain->product}) {
      d.deferred[static_cast<std::size_t>(x)] = true;
      d.read_at[static_cast<std::size_t>(x)] = static_cast<int>(j);
    }
    d.any = true;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const Node& n = g.nodes[i];
    if (n.op == Op::window && !d.deferred[i] && n.type.elem.kind == types::ElemKind::f32 &&
        last_einsum[i] >= 0 && !other_reader[i] && !fused(i) && !n.axes.empty() &&
        n.axes.front() != 0) {
      d.deferred[i] = d.any = true;
      d.read_at[i] = last_einsum[i];
    }
  }
  // Two-operand einsums read only by a window_fold, as its values.
  std::vector<int> fold_of(count, -1), readers(count, 0);
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t k = 0; k < g.nodes[i].in.size(); ++k) {
      const auto x = static_cast<std::size_t>(g.nodes[i].in[k]);
      ++readers[x];
      if (g.nodes[i].op == Op::window_fold && k == 0) fold_of[x] = static_cast<int>(i);
    }
  for (const int o : g.outputs) ++readers[static_cast<std::size_t>(o)];
  for (std::size_t i = 0; i < count; ++i) {
    const Node& n = g.nodes[i];
    bool reads_deferred = false;
    for (const int x : n.in)
      reads_deferred = reads_deferred || d.deferred[static_cast<std::size_t>(x)];
    if (n.op == Op::einsum && n.in.size() == 2 && n.type.elem.kind == types::ElemKind::f32 &&
        fold_of[i] >= 0 && readers[i] == 1 && !fused(i) && !reads_deferred) {
      d.deferred[i] = d.any = true;
      d.read_at[i] = fold_of[i];
    }
  }
  return d;
}

}  // namespace ss::ir
