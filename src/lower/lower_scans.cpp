// A scan (`for k in m.blocks:`, `for xt in slices(x, over=T):`) as one
// loop node: its body lowered once into a graph of its own, whose inputs
// are what the steps carry (the names the body assigns that were bound
// before), each step's part of the stepped values (a stack's parameters,
// stacked over its layers; the tensor sliced), and the values it reads
// from around it.
#include <set>

#include "lower/lowerer.hpp"

namespace ss::lower::detail {
namespace {

// Names a body assigns, at any depth.
void assigned(const std::vector<Stmt>& body, std::set<std::string>& out) {
  for (const auto& s : body) {
    if (s.kind == StmtKind::assign)
      for (const auto& t : s.targets)
        if (t->kind == ExprKind::name) out.insert(t->text);
    if (s.kind == StmtKind::for_) out.insert(s.loop_var);
    assigned(s.body, out);
    assigned(s.else_body, out);
  }
}

// The graph without the free inputs (from `first_free` on in its inputs)
// that nothing reads; `kept` gets the free inputs kept, by position.
Graph without_unread(Graph g, std::size_t first_free, std::vector<std::size_t>& kept) {
  std::vector<bool> read(g.nodes.size(), false);
  for (const auto& n : g.nodes)
    for (const int x : n.in) read[static_cast<std::size_t>(x)] = true;
  for (const int o : g.outputs) read[static_cast<std::size_t>(o)] = true;
  std::vector<bool> drop(g.nodes.size(), false);
  for (std::size_t k = first_free; k < g.inputs.size(); ++k) {
    const auto id = static_cast<std::size_t>(g.inputs[k]);
    if (read[id])
      kept.push_back(k - first_free);
    else
      drop[id] = true;
  }
  Graph out;
  out.name = g.name;
  out.symbols = g.symbols;
  out.batch = g.batch;
  std::vector<int> map(g.nodes.size(), -1);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (drop[i]) continue;
    Node n = std::move(g.nodes[i]);
    for (int& x : n.in) x = map[static_cast<std::size_t>(x)];
    map[i] = out.add(std::move(n));
  }
  for (const int x : g.inputs)
    if (!drop[static_cast<std::size_t>(x)]) out.inputs.push_back(map[static_cast<std::size_t>(x)]);
  for (const int o : g.outputs) out.outputs.push_back(map[static_cast<std::size_t>(o)]);
  return out;
}

}  // namespace

void Lowerer::scan(const Stmt& s, Scope& scope) {
  const Type over = p_.type_of(*s.value);
  const diag::Span span = s.value->span;
  // The stepped values, the axis each steps along, and the loop variable's
  // shape (a layer's structure, or one tensor).
  std::vector<int> stepped;
  std::vector<std::int64_t> axes;
  Val var;
  if (over.is(Type::Kind::model)) {
    const Val stack = value(*s.value, scope);
    const Axis& length = p_.stacks.at(over.name);
    std::vector<std::vector<int>> layers;
    for (const Val& layer : stack.items) {
      layers.emplace_back();
      leaves(layer, "", layers.back(), nullptr);
    }
    var = stack.items.at(0);
    if (layers[0].empty()) throw NotLowered("a loop over layers with no parameters", span);
    for (std::size_t j = 0; j < layers[0].size(); ++j) {
      Node st;
      st.op = Op::stack;
      for (const auto& layer : layers) st.in.push_back(layer[j]);
      st.type = g_.nodes[static_cast<std::size_t>(layers[0][j])].type;
      st.type.axes.insert(st.type.axes.begin(), length);
      st.span = span;
      stepped.push_back(g_.add(std::move(st)));
      axes.push_back(0);
    }
  } else {  // slices(x, over=T)
    const Val x = value(*s.value->items.at(1), scope);
    stepped.push_back(tensor(x, ElemKind::f32, span));
    axes.push_back(static_cast<std::int64_t>(p_.axes.at(s.value.get()).at(0)));
    var.kind = Val::Kind::tensor;
  }

  // The carries: names bound before that the body assigns.
  std::set<std::string> names;
  assigned(s.body, names);
  std::vector<std::string> carries;
  for (const auto& name : names) {
    const auto it = scope.vars.find(name);
    if (it == scope.vars.end() || name == s.loop_var) continue;
    if (it->second.kind != Val::Kind::tensor)
      throw NotLowered("a loop that changes `" + name + "`, which isn't a tensor", s.span);
    carries.push_back(name);
  }
  if (carries.empty()) return;  // it changes nothing the code after it reads

  // The body, in a graph of its own. A dropout in it draws from the
  // graph's seed plus the step's number times a large odd constant, so each
  // step (each layer) has masks of its own: found on a first try, the body
  // is lowered again with the seed and the steps' numbers as inputs.
  const std::vector<int> stepped_given = stepped;
  const std::vector<std::int64_t> axes_given = axes;
  const int sites_before = dropout_sites_;
  std::vector<int> loop_in;
  Graph body;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool seeded = attempt == 1;
    stepped = stepped_given;
    axes = axes_given;
    dropout_sites_ = sites_before;
    if (seeded) {
      if (seed_input_ < 0) {  // the graph's `$seed`, as a dropout outside makes it
        seed_input_ = g_.add(
            {.op = Op::input, .name = "$seed", .type = Type::scalar(ElemKind::i32), .span = span});
        g_.inputs.push_back(seed_input_);
      }
      const Type& first = g_.nodes[static_cast<std::size_t>(stepped[0])].type;
      Node steps_count;
      steps_count.op = Op::arange;
      steps_count.type = Type::tensor({first.axes.at(static_cast<std::size_t>(axes[0]))},
                                      types::Elem{ElemKind::i32, {}, false});
      steps_count.span = span;
      stepped.push_back(g_.add(std::move(steps_count)));
      axes.push_back(0);
    }
    Graph outer = std::move(g_);
    g_ = Graph{};
    g_.name = outer.name + " loop";
    g_.symbols = outer.symbols;
    g_.batch = outer.batch;
    const int seed_before = seed_input_;
    seed_input_ = -1;
    const auto body_input = [&](const std::string& name, Type t) {
      Node n;
      n.op = Op::input;
      n.name = name;
      n.type = std::move(t);
      n.span = span;
      const int id = g_.add(std::move(n));
      g_.inputs.push_back(id);
      return id;
    };
    const auto outer_type = [&](int id) { return outer.nodes[static_cast<std::size_t>(id)].type; };
    Scope inner;
    inner.subst = scope.subst;
    loop_in.clear();
    for (std::size_t k = 0; k < carries.size(); ++k) {
      const int was = scope.vars.at(carries[k]).node;
      inner.vars[carries[k]] = node_val(body_input("carry." + std::to_string(k), outer_type(was)));
      loop_in.push_back(was);
    }
    std::vector<int> steps;
    for (std::size_t j = 0; j < stepped.size(); ++j) {
      Type t = outer_type(stepped[j]);
      t.axes.erase(t.axes.begin() + axes[j]);
      steps.push_back(body_input("step." + std::to_string(j), std::move(t)));
      loop_in.push_back(stepped[j]);
    }
    std::size_t at = 0;
    inner.vars[s.loop_var] = with_leaves(var, steps, at);
    // Every other tensor around it, as a free input; the unread ones go below.
    const std::size_t first_free = g_.inputs.size();
    std::vector<int> frees;
    const std::function<Val(const Val&)> rebind = [&](const Val& v) {
      Val out = v;
      if (v.kind == Val::Kind::tensor) {
        out.node = body_input("free." + std::to_string(frees.size()), outer_type(v.node));
        frees.push_back(v.node);
        return out;
      }
      for (auto& item : out.items) item = rebind(item);
      return out;
    };
    for (const auto& [name, v] : scope.vars)
      if (!inner.vars.count(name)) inner.vars[name] = rebind(v);
    if (seeded) {  // the body's seed: the graph's, plus the step's number times a large odd
      const int graph_seed =
          body_input("free." + std::to_string(frees.size()), Type::scalar(ElemKind::i32));
      frees.push_back(seed_before);
      const int index = steps.back();
      const int spread = g_.add({.op = Op::binary,
                                 .in = {index, constant(1000003, ElemKind::i32, span)},
                                 .sub = static_cast<int>(Binary::mul),
                                 .type = Type::scalar(ElemKind::i32),
                                 .span = span});
      seed_input_ = g_.add({.op = Op::binary,
                            .in = {graph_seed, spread},
                            .sub = static_cast<int>(Binary::add),
                            .type = Type::scalar(ElemKind::i32),
                            .span = span});
    }
    block(s.body, inner);
    if (inner.returned) throw NotLowered("`return` inside a scan", s.span);
    const bool drew = seed_input_ >= 0 && !seeded;
    seed_input_ = seed_before;
    if (drew) {  // again, with a seed per step
      g_ = std::move(outer);
      continue;
    }
    for (const auto& name : carries)
      g_.outputs.push_back(tensor(inner.vars.at(name), ElemKind::f32, s.span));
    std::vector<std::size_t> kept;
    body = without_unread(std::move(g_), first_free, kept);
    g_ = std::move(outer);
    for (const std::size_t k : kept) loop_in.push_back(frees[k]);
    break;
  }

  Node loop;
  loop.op = Op::loop;
  loop.in = std::move(loop_in);
  loop.ints = {static_cast<std::int64_t>(carries.size()), static_cast<std::int64_t>(stepped.size()),
               0};
  loop.ints.insert(loop.ints.end(), axes.begin(), axes.end());
  fuse_attention(body);
  loop.body = std::make_shared<const Graph>(std::move(body));
  loop.type = g_.nodes[static_cast<std::size_t>(loop.in[0])].type;
  loop.span = s.span;
  const int id = g_.add(std::move(loop));
  for (std::size_t k = 0; k < carries.size(); ++k) {
    if (k == 0) {
      scope.vars[carries[k]] = node_val(id);
      continue;
    }
    Node part;
    part.op = Op::loop_part;
    part.in = {id};
    part.number = static_cast<double>(k);
    part.type =
        g_.nodes[static_cast<std::size_t>(g_.nodes[static_cast<std::size_t>(id)].in[k])].type;
    part.span = s.span;
    scope.vars[carries[k]] = node_val(g_.add(std::move(part)));
  }
}

}  // namespace ss::lower::detail
