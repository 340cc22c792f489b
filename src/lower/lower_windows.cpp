// conv, max_pool and avg_pool, built on ir::Op::window (a strided, dilated,
// padded view whose gradient is its fold): conv is the window contracted
// with the kernel by einsum (a grouped one split by einops first), pooling
// reduces each window. A max keeps the first maximum (argmax), so its
// gradient goes there, as PyTorch's max_pool does.
#include <cmath>
#include <limits>

#include "lower/lowerer.hpp"

namespace ss::lower::detail {

using types::Elem;

namespace {

std::vector<std::vector<std::string>> single(const std::vector<std::string>& names) {
  std::vector<std::vector<std::string>> out;
  for (const auto& n : names) out.push_back({n});
  return out;
}

// Nodes [first, last] of g (a chain that reads `x` and constants before
// it) as a graph of their own: x its input, `last` its output.
Graph chain_body(const Graph& g, int x, int first, int last, const std::string& name) {
  Graph body;
  body.name = name;
  std::map<int, int> at;
  at[x] =
      body.add({.op = Op::input, .name = "x", .type = g.nodes[static_cast<std::size_t>(x)].type});
  body.inputs.push_back(at[x]);
  const auto copy = [&](int id) {
    Node n = g.nodes[static_cast<std::size_t>(id)];
    for (int& k : n.in) k = at.at(k);
    at[id] = body.add(std::move(n));
  };
  for (int id = first; id <= last; ++id) {
    for (const int k : g.nodes[static_cast<std::size_t>(id)].in)
      if (!at.count(k)) {
        if (g.nodes[static_cast<std::size_t>(k)].op != Op::constant)
          throw std::logic_error("a pooling chain reads a value of its own");
        copy(k);
      }
    copy(id);
  }
  body.outputs = {at.at(last)};
  return body;
}

}  // namespace

Val Lowerer::window_op(const std::string& /*name*/, const Expr& e, Scope& scope) {
  const auto& plan = p_.windows.at(&e);
  const Type result = type_of(e, scope);
  const int x = tensor(value(*e.items[1], scope), ElemKind::f32, e.span);
  const Type xt = g_.nodes[static_cast<std::size_t>(x)].type;
  const std::size_t n = plan.over.size(), rank = xt.axes.size();
  const auto static_of = [&](const Axis& a) {
    const auto size = types::static_size(substitute(a, scope.subst), p_.dims);
    if (!size) throw NotLowered("a window whose size isn't known statically", e.span);
    return *size;
  };
  // The window: each windowed axis its count, each window's axes appended.
  Node w;
  w.op = Op::window;
  w.in = {x};
  w.span = e.span;
  w.number = plan.kind == check::WindowPlan::Kind::max_pool
                 ? -std::numeric_limits<double>::infinity()
                 : 0.0;
  Type wt = xt;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t k = static_of(plan.size[i]);
    std::int64_t before = plan.before[i], after = plan.after[i];
    if (plan.same) {
      const std::int64_t total = plan.dilation[i] * (k - 1);
      before = total / 2;
      after = total - before;
    }
    w.axes.push_back(static_cast<std::int64_t>(plan.over[i]));
    w.ints.insert(w.ints.end(), {k, plan.stride[i], plan.dilation[i], before, after});
    wt.axes[plan.over[i]] = result.axes[plan.over[i]];
  }
  for (std::size_t i = 0; i < n; ++i) wt.axes.push_back(substitute(plan.size[i], scope.subst));
  w.type = Type::tensor(wt.axes, Elem{ElemKind::f32, {}, false});
  const int windows = g_.add(w);

  std::vector<std::string> axes;  // x's axes, then the window's
  for (std::size_t i = 0; i < rank; ++i) axes.push_back("a" + std::to_string(i));
  std::vector<std::string> js;
  for (std::size_t i = 0; i < n; ++i) js.push_back("j" + std::to_string(i));

  if (plan.kind == check::WindowPlan::Kind::avg_pool) {
    // PyTorch's default counts the padding: the mean over the whole window.
    Node r;
    r.op = Op::reduce;
    r.sub = static_cast<int>(Reduce::mean);
    for (std::size_t i = 0; i < n; ++i) r.axes.push_back(static_cast<std::int64_t>(rank + i));
    r.in = {windows};
    r.type = result;
    r.span = e.span;
    return node(r);
  }
  if (plan.kind == check::WindowPlan::Kind::max_pool) {
    // One axis for the window's elements, then the first maximum of each.
    std::int64_t size = 1;
    for (std::size_t i = 0; i < n; ++i) size *= static_of(plan.size[i]);
    Node flat;
    flat.op = Op::einops;
    flat.in = {windows};
    auto names = axes;
    names.insert(names.end(), js.begin(), js.end());
    flat.groups_in = {single(names)};
    flat.groups_out = single(axes);
    flat.groups_out.push_back(js);
    for (std::size_t i = 0; i < n; ++i) flat.sizes[js[i]] = wt.axes[rank + i];
    std::vector<Axis> flat_axes(wt.axes.begin(),
                                wt.axes.begin() + static_cast<std::ptrdiff_t>(rank));
    flat_axes.push_back(Axis::literal(size));
    flat.type = Type::tensor(flat_axes, Elem{ElemKind::f32, {}, false});
    flat.span = e.span;
    const int f = g_.add(flat);
    const auto last = static_cast<std::int64_t>(rank);
    Node am;
    am.op = Op::argmax;
    am.in = {f};
    am.axes = {last};
    am.keep = true;
    auto kept = flat_axes;
    kept.back() = Axis::literal(1);
    am.type = Type::tensor(kept, Elem{ElemKind::index, Axis::literal(size), false});
    am.span = e.span;
    const int first = g_.add(am);
    Node iota;
    iota.op = Op::arange;
    iota.type =
        Type::tensor({Axis::literal(size)}, Elem{ElemKind::index, Axis::literal(size), false});
    iota.span = e.span;
    const int at = g_.add(iota);
    Node eq;
    eq.op = Op::binary;
    eq.sub = static_cast<int>(Binary::eq);
    eq.in = {at, first};
    eq.type = Type::tensor(flat_axes, Elem{ElemKind::boolean, {}, false});
    eq.span = e.span;
    const int mask = g_.add(eq);
    Node pick;
    pick.op = Op::where;
    pick.in = {mask, f, constant(0, ElemKind::f32, e.span)};
    pick.type = flat.type;
    pick.span = e.span;
    const int picked = g_.add(pick);
    Node r;
    r.op = Op::reduce;
    r.sub = static_cast<int>(Reduce::sum);
    r.axes = {last};
    r.in = {picked};
    r.type = result;
    r.span = e.span;
    const int pooled = g_.add(r);
    // One max_pool node, the chain above its body (ir/fused.hpp).
    Node pool;
    pool.op = Op::max_pool;
    pool.in = {x};
    pool.axes = w.axes;
    pool.ints = w.ints;
    pool.number = w.number;
    pool.type = result;
    pool.span = e.span;
    pool.body = std::make_shared<const Graph>(chain_body(g_, x, windows, pooled, "max_pool"));
    g_.nodes.resize(static_cast<std::size_t>(windows));
    return node(pool);
  }
  // conv: the windows (channels "c", window "j") against the kernel
  // (j.. c f), each output position's channels "f".
  const int k = tensor(value(*e.items[2], scope), ElemKind::f32, e.span);
  const Type kt = g_.nodes[static_cast<std::size_t>(k)].type;
  auto out_names = axes;
  out_names[rank - 1] = "f";
  auto w_names = axes;
  w_names[rank - 1] = "c";
  w_names.insert(w_names.end(), js.begin(), js.end());
  auto k_names = js;
  k_names.insert(k_names.end(), {"c", "f"});
  Node ein;
  ein.op = Op::einsum;
  ein.span = e.span;
  if (plan.groups == 1) {
    ein.in = {windows, k};
    ein.groups_in = {single(w_names), single(k_names)};
    ein.groups_out = single(out_names);
    ein.type = result;
    return node(ein);
  }
  // Grouped: the channels split as (g c) in the image and (g f) in the
  // kernel's output, contracted group by group, joined again.
  const Axis groups = Axis::literal(plan.groups);
  const std::int64_t co = static_of(kt.axes[n + 1]);
  const Axis per_group = Axis::literal(co / plan.groups);
  const Axis ci = substitute(kt.axes[n], scope.subst);
  const auto split = [&](int in, const Type& t, std::size_t at, const std::string& inner,
                         const Axis& inner_size, std::vector<std::string> names) {
    Node s;
    s.op = Op::einops;
    s.in = {in};
    s.span = e.span;
    auto before = single(names);
    before[at] = {"g", inner};
    s.groups_in = {before};
    auto after = names;
    after[at] = inner;
    after.insert(after.begin() + static_cast<std::ptrdiff_t>(at), "g");
    s.groups_out = single(after);
    s.sizes["g"] = groups;
    s.sizes[inner] = inner_size;
    auto a = t.axes;
    a[at] = inner_size;
    a.insert(a.begin() + static_cast<std::ptrdiff_t>(at), groups);
    s.type = Type::tensor(a, Elem{ElemKind::f32, {}, false});
    return g_.add(s);
  };
  const int ws = split(windows, w.type, rank - 1, "c", ci, w_names);
  const int ks = split(k, kt, n + 1, "f", per_group, k_names);
  auto ws_names = w_names;
  ws_names.insert(ws_names.begin() + static_cast<std::ptrdiff_t>(rank - 1), "g");
  auto ks_names = k_names;
  ks_names.insert(ks_names.begin() + static_cast<std::ptrdiff_t>(n + 1), "g");
  auto grouped = out_names;
  grouped.insert(grouped.begin() + static_cast<std::ptrdiff_t>(rank - 1), "g");
  ein.in = {ws, ks};
  ein.groups_in = {single(ws_names), single(ks_names)};
  ein.groups_out = single(grouped);
  auto ga = result.axes;
  ga[rank - 1] = per_group;
  ga.insert(ga.begin() + static_cast<std::ptrdiff_t>(rank - 1), groups);
  ein.type = Type::tensor(ga, Elem{ElemKind::f32, {}, false});
  const int product = g_.add(ein);
  Node join;
  join.op = Op::einops;
  join.in = {product};
  join.span = e.span;
  join.groups_in = {single(grouped)};
  auto joined = single(out_names);
  joined[rank - 1] = {"g", "f"};
  join.groups_out = joined;
  join.sizes["g"] = groups;
  join.sizes["f"] = per_group;
  join.type = result;
  return node(join);
}

}  // namespace ss::lower::detail
