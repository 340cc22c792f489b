#include "ir/attention.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>

#include "ir/ops.hpp"

namespace ss::ir {
namespace {

using types::Type;

// v's own letter (and the output's), spelt so no program's letter is it.
constexpr const char* kValueLetter = "$e";

std::vector<std::string> letters(const std::vector<std::vector<std::string>>& groups) {
  std::vector<std::string> out;
  for (const auto& group : groups) {
    if (group.size() != 1) return {};  // a grouped axis: not a plain layout
    out.push_back(group[0]);
  }
  return out;
}

std::vector<std::vector<std::string>> groups(const std::vector<std::string>& names) {
  std::vector<std::vector<std::string>> out;
  for (const auto& name : names) out.push_back({name});
  return out;
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool distinct(const std::vector<std::string>& names) {
  return std::set<std::string>(names.begin(), names.end()).size() == names.size();
}

bool is_f32(const Type& t) {
  return t.is_tensor() && t.elem.kind == types::ElemKind::f32;
}

// The chain found ending at an einsum: its nodes, and the layout.
struct Chain {
  int q = -1, k = -1, v = -1, scale = -1;
  int scores = -1, scaled = -1, masked = -1, weights = -1, mixed = -1;
  bool k_left = false;      // the scores' einsum reads k first
  bool scale_left = false;  // the scale is the product's first operand
  int w_slot = 0;           // the weights' place in the second einsum
  AttentionLayout layout;
};

class Finder {
 public:
  explicit Finder(const Graph& g) : g_(g), readers_(g.nodes.size(), 0) {
    for (const auto& n : g.nodes)
      for (const int x : n.in) ++readers_[static_cast<std::size_t>(x)];
    for (const int o : g.outputs) ++readers_[static_cast<std::size_t>(o)];
  }

  std::optional<Chain> at(int mixed) const {
    const Node& e2 = node(mixed);
    if (e2.op != Op::einsum || e2.in.size() != 2 || e2.groups_in.size() != 2 || !is_f32(e2.type))
      return std::nullopt;
    for (int w_slot = 0; w_slot < 2; ++w_slot)
      if (auto chain = from(mixed, w_slot)) return chain;
    return std::nullopt;
  }

 private:
  const Node& node(int i) const { return g_.nodes[static_cast<std::size_t>(i)]; }
  // Read by one node only (and not an output): the chain may take it.
  bool single(int i) const { return readers_[static_cast<std::size_t>(i)] == 1; }

  // A scalar computed from constants and sizes only: no gradient reaches it.
  bool constant_scalar(int i) const {
    const Node& n = node(i);
    if (!n.type.axes.empty() || !is_f32(n.type)) return false;
    std::vector<int> todo = {i};
    while (!todo.empty()) {
      const Node& m = node(todo.back());
      todo.pop_back();
      if (m.op != Op::constant && m.op != Op::size && m.op != Op::fill && m.op != Op::unary &&
          m.op != Op::binary && m.op != Op::cast)
        return false;
      if (!m.type.axes.empty()) return false;
      todo.insert(todo.end(), m.in.begin(), m.in.end());
    }
    return true;
  }

  std::optional<Chain> from(int mixed, int w_slot) const {
    Chain c;
    c.mixed = mixed;
    c.w_slot = w_slot;
    const Node& e2 = node(mixed);
    c.weights = e2.in[static_cast<std::size_t>(w_slot)];
    c.v = e2.in[static_cast<std::size_t>(1 - w_slot)];
    const Node& sm = node(c.weights);
    if (sm.op != Op::softmax || !single(c.weights) || sm.axes.size() != 1) return std::nullopt;
    int below = sm.in[0];
    if (node(below).op == Op::causal) {
      if (!single(below)) return std::nullopt;
      c.masked = below;
      below = node(below).in[0];
    }
    const Node& b = node(below);
    if (b.op == Op::binary && single(below) &&
        (b.sub == static_cast<int>(Binary::mul) || b.sub == static_cast<int>(Binary::div))) {
      const bool div = b.sub == static_cast<int>(Binary::div);
      int product = -1;
      if (node(b.in[0]).op == Op::einsum && constant_scalar(b.in[1])) {
        product = b.in[0];
        c.scale = b.in[1];
      } else if (!div && node(b.in[1]).op == Op::einsum && constant_scalar(b.in[0])) {
        product = b.in[1];
        c.scale = b.in[0];
        c.scale_left = true;
      } else {
        return std::nullopt;
      }
      if (node(product).type.str() != b.type.str()) return std::nullopt;  // no broadcast
      c.scaled = below;
      c.layout.scaled = true;
      c.layout.divide = div;
      below = product;
    }
    const Node& e1 = node(below);
    if (e1.op != Op::einsum || !single(below) || e1.in.size() != 2 || e1.groups_in.size() != 2 ||
        !is_f32(e1.type))
      return std::nullopt;
    c.scores = below;
    return layout(c) ? std::optional<Chain>(c) : std::nullopt;
  }

  // The letters of both einsums, in the first's terms; false where the
  // chain isn't attention (or not one the kernel's layout reads).
  bool layout(Chain& c) const {
    const Node& e1 = node(c.scores);
    const Node& e2 = node(c.mixed);
    const auto s = letters(e1.groups_out);
    const auto left = letters(e1.groups_in[0]), right = letters(e1.groups_in[1]);
    if (s.size() < 2 || !distinct(s) || !distinct(left) || !distinct(right)) return false;
    auto axis = node(c.weights).axes[0];
    if (axis < 0) axis += static_cast<std::int64_t>(s.size());
    if (axis < 0 || axis >= static_cast<std::int64_t>(s.size())) return false;
    AttentionLayout& l = c.layout;
    l.j = s[static_cast<std::size_t>(axis)];
    if (has(left, l.j) == has(right, l.j)) return false;
    const bool k_left = has(left, l.j);
    c.k_left = k_left;
    const auto& q = k_left ? right : left;
    const auto& k = k_left ? left : right;
    c.q = e1.in[k_left ? 1 : 0];
    c.k = e1.in[k_left ? 0 : 1];
    std::vector<std::string> batch;
    for (const auto& x : s) {
      if (x == l.j) continue;
      if (has(q, x) && !has(k, x)) {
        if (!l.i.empty()) return false;
        l.i = x;
      } else {
        batch.push_back(x);
      }
    }
    for (const auto& x : q)
      if (has(k, x) && !has(s, x)) {
        if (!l.d.empty()) return false;
        l.d = x;
      }
    if (l.i.empty() || l.d.empty()) return false;
    for (const auto& x : q)
      if (x != l.i && x != l.d && !has(batch, x)) return false;
    for (const auto& x : k)
      if (x != l.j && x != l.d && !has(batch, x)) return false;
    if (c.masked >= 0) {
      l.causal = true;
      if (s[s.size() - 2] != l.i || s[s.size() - 1] != l.j) return false;
    }
    // The second einsum: its weights' letters name the scores' axes.
    const auto w = letters(e2.groups_in[static_cast<std::size_t>(c.w_slot)]);
    const auto v = letters(e2.groups_in[static_cast<std::size_t>(1 - c.w_slot)]);
    const auto out = letters(e2.groups_out);
    if (w.size() != s.size() || !distinct(w) || !distinct(v) || !distinct(out)) return false;
    std::map<std::string, std::string> to_s;
    for (std::size_t p = 0; p < w.size(); ++p) to_s[w[p]] = s[p];
    std::string own;  // v's letter the weights lack
    for (const auto& x : v)
      if (!to_s.count(x)) {
        if (!own.empty()) return false;
        own = x;
      }
    if (own.empty() || has(out, own) == false) return false;
    l.e = kValueLetter;
    to_s[own] = l.e;
    for (const auto& x : v) {
      const std::string& y = to_s.at(x);
      if (y == l.i) return false;  // v along the queries: not attention
      l.v.push_back(y);
    }
    if (!has(l.v, l.j)) return false;
    for (const auto& x : out) {
      const auto it = to_s.find(x);
      if (it == to_s.end() || it->second == l.j) return false;
      l.out.push_back(it->second);
    }
    if (l.out.size() != batch.size() + 2 || !has(l.out, l.i)) return false;
    l.q = q;
    l.k = k;
    // q, k and v share a type, so their gradients stack into one value.
    for (const int x : {c.q, c.k, c.v})
      if (!is_f32(node(x).type) || node(x).type.str() != node(c.q).type.str()) return false;
    return true;
  }

  const Graph& g_;
  std::vector<int> readers_;
};

// The chain as a graph of its own: q, k, v (and the scale) in, each its
// own input even where the program passed one node twice (einsum(x, x)),
// so each slot's gradient is its own; the mixed value out, each node a copy
// of the program's.
Graph chain_body(const Graph& g, const Chain& c) {
  Graph body;
  body.name = "attention";
  const auto input = [&](int id, const char* name) {
    const int at = body.add(
        {.op = Op::input, .name = name, .type = g.nodes[static_cast<std::size_t>(id)].type});
    body.inputs.push_back(at);
    return at;
  };
  const int q = input(c.q, "q"), k = input(c.k, "k"), v = input(c.v, "v");
  const int scale = c.scale >= 0 ? input(c.scale, "scale") : -1;
  const auto copy = [&](int id) { return g.nodes[static_cast<std::size_t>(id)]; };
  Node scores = copy(c.scores);
  scores.in = c.k_left ? std::vector<int>{k, q} : std::vector<int>{q, k};
  int last = body.add(std::move(scores));
  if (c.scaled >= 0) {
    Node scaled = copy(c.scaled);
    scaled.in = c.scale_left ? std::vector<int>{scale, last} : std::vector<int>{last, scale};
    last = body.add(std::move(scaled));
  }
  for (const int id : {c.masked, c.weights}) {
    if (id < 0) continue;
    Node n = copy(id);
    n.in = {last};
    last = body.add(std::move(n));
  }
  Node mixed = copy(c.mixed);
  mixed.in = c.w_slot == 0 ? std::vector<int>{last, v} : std::vector<int>{v, last};
  body.outputs = {body.add(std::move(mixed))};
  return body;
}

}  // namespace

AttentionLayout attention_of(const Node& n) {
  AttentionLayout l;
  l.q = letters(n.groups_in.at(0));
  l.k = letters(n.groups_in.at(1));
  l.v = letters(n.groups_in.at(2));
  l.out = letters(n.groups_out);
  l.causal = n.keep;
  l.scaled = n.op == Op::attention ? n.in.size() == 4 : n.in.size() == 5;
  l.divide = n.sub == 1;
  // i: q's and out's; j: k's and v's; d: q's and k's; e: v's and out's.
  for (const auto& x : l.q) {
    if (has(l.out, x) && !has(l.k, x) && !has(l.v, x)) l.i = x;
    if (has(l.k, x) && !has(l.out, x)) l.d = x;
  }
  for (const auto& x : l.k)
    if (has(l.v, x) && !has(l.out, x)) l.j = x;
  for (const auto& x : l.v)
    if (has(l.out, x) && !has(l.q, x) && !has(l.k, x)) l.e = x;
  return l;
}

int fuse_attention(Graph& g) {
  int fused = 0;
  for (auto& n : g.nodes)
    if (n.op == Op::loop && n.body) {
      Graph body = *n.body;
      if (const int inner = fuse_attention(body); inner > 0) {
        n.body = std::make_shared<const Graph>(std::move(body));
        fused += inner;
      }
    }
  // Readers counted once: a rewrite leaves every other chain's counts as
  // they were (only its own nodes lose theirs).
  const Finder finder(g);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto chain = finder.at(static_cast<int>(i));
    if (!chain) continue;
    const Node& mixed = g.nodes[i];
    Node a{.op = Op::attention,
           .in = {chain->q, chain->k, chain->v},
           .sub = chain->layout.divide ? 1 : 0,
           .keep = chain->layout.causal,
           .groups_in = {groups(chain->layout.q), groups(chain->layout.k), groups(chain->layout.v)},
           .groups_out = groups(chain->layout.out),
           .type = mixed.type,
           .span = mixed.span,
           .body = std::make_shared<const Graph>(chain_body(g, *chain))};
    if (chain->scale >= 0) a.in.push_back(chain->scale);
    g.nodes[i] = std::move(a);
    ++fused;
  }
  return fused;
}

}  // namespace ss::ir
