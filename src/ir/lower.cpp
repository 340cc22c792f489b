#include "ir/lower.hpp"

#include <algorithm>
#include <map>

#include "ir/autodiff.hpp"
#include "ir/ops.hpp"
#include "ir/optimizers.hpp"
#include "support/scalar_arith.hpp"

namespace ss::ir {
namespace {

using check::Axis;
using check::ElemKind;
using check::Factor;
using check::Type;
using syntax::Expr;
using syntax::ExprKind;
using syntax::Stmt;
using syntax::StmtKind;

// What a name holds while lowering: a tensor node, a static number, or a
// structure (a model, a record or batch, an optimiser) of named fields,
// each a Val: at first the graph's inputs ("m.w1"), then whatever nodes
// the function computed for them (a gradient, an updated model).
struct Val {
  enum class Kind { tensor, number, model, record, optimizer, tuple, function, none };
  Kind kind = Kind::none;
  int node = -1;
  double number = 0;
  bool integer = false;
  std::string type;  // model or record name, optimiser kind; the function's name
  Axis batch;        // a batch's axis (records of a batch carry it)
  bool is_batch = false;
  std::vector<Val> items;          // a tuple's items; a structure's fields
  std::vector<std::string> names;  // a structure's fields' names

  const Val* field(const std::string& name) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return &items[i];
    return nullptr;
  }
};

// A structure's tensors in order, depth first, with their paths under it.
void leaves(const Val& v, const std::string& path, std::vector<int>& nodes,
            std::vector<std::string>* paths) {
  if (v.kind == Val::Kind::tensor) {
    nodes.push_back(v.node);
    if (paths) paths->push_back(path);
    return;
  }
  for (std::size_t i = 0; i < v.items.size(); ++i)
    leaves(v.items[i], path.empty() ? v.names[i] : path + "." + v.names[i], nodes, paths);
}

// The structure `shape` with its tensors replaced, in leaves' order.
Val with_leaves(const Val& shape, const std::vector<int>& nodes, std::size_t& at) {
  Val v = shape;
  if (v.kind == Val::Kind::tensor) {
    v.node = nodes.at(at++);
    return v;
  }
  for (auto& item : v.items) item = with_leaves(item, nodes, at);
  return v;
}

class Lowerer {
 public:
  explicit Lowerer(const check::TypedProgram& p) : p_(p) {}

  const std::map<const syntax::Expr*, std::string>* bound = nullptr;

  Graph run(const std::string& name) {
    const auto& fn = p_.functions.at(name);
    if (fn.controller || fn.item->is_extern)
      throw NotLowered("`" + name + "` runs in the controller, not on a device",
                       fn.item->name_span);
    g_.name = name;
    g_.symbols = fn.generics;
    g_.batch = fn.batch_axes;
    Scope scope;
    for (std::size_t i = 0; i < fn.params.size(); ++i)
      scope.vars[fn.item->params[i].name] =
          input(fn.item->params[i].name, fn.params[i], fn.item->params[i].span);
    const std::map<std::string, Val> before = scope.vars;
    const Val result = body(fn, scope);
    flatten_outputs(result);
    for (std::size_t i = 0; i < fn.params.size(); ++i) {
      const std::string& param = fn.item->params[i].name;
      if (fn.item->params[i].is_mut) output_updates(param, before.at(param), scope.vars.at(param));
    }
    if (const std::string bad = verify(g_); !bad.empty())
      throw std::logic_error("lowering made a bad graph: " + bad);
    return std::move(g_);
  }

  Graph expression(const Expr& e, const std::map<std::string, Type>& variables) {
    g_.name = "expression";
    Scope scope;
    for (const auto& [name, type] : variables) scope.vars[name] = input(name, type, e.span);
    const std::map<std::string, Val> before = scope.vars;
    flatten_outputs(value(e, scope));
    // The structures the expression changed (`f(mut m)`): their new tensors.
    for (const auto& [name, was] : before)
      if (was.kind != Val::Kind::tensor) output_updates(name, was, scope.vars.at(name));
    if (const std::string bad = verify(g_); !bad.empty())
      throw std::logic_error("lowering made a bad graph: " + bad);
    return std::move(g_);
  }

 private:
  struct Scope {
    std::map<std::string, Val> vars;
    std::map<std::string, Axis> subst;  // the function's generic axes, as the graph's
    Val result;
    bool returned = false;
  };

  // An input per tensor the parameter holds: a model's parameters, a
  // batch's or record's fields.
  Val input(const std::string& path, const Type& type, syntax::Span span) {
    Val v;
    switch (type.kind) {
      case Type::Kind::tensor: {
        Node n;
        n.op = Op::input;
        n.name = path;
        n.type = type;
        n.span = span;
        v.kind = Val::Kind::tensor;
        v.node = g_.add(n);
        g_.inputs.push_back(v.node);
        return v;
      }
      case Type::Kind::model:
        v.kind = Val::Kind::model;
        v.type = type.name;
        for (const auto& m : p_.models.at(type.name))
          if (m.type.is_tensor() || m.type.is(Type::Kind::model)) {
            v.names.push_back(m.name);
            v.items.push_back(input(path + "." + m.name, m.type, span));
          }
        return v;
      case Type::Kind::record:
      case Type::Kind::batch:
        v.kind = Val::Kind::record;
        v.type = type.name;
        v.is_batch = type.is(Type::Kind::batch);
        v.batch = type.batch_axis;
        for (const auto& [field, ft] : p_.records.at(type.name)) {
          Type t = ft;
          if (v.is_batch) t.axes.insert(t.axes.begin(), type.batch_axis);
          v.names.push_back(field);
          v.items.push_back(input(path + "." + field, t, span));
        }
        return v;
      case Type::Kind::optimizer: {
        // Settings, the step count, then per state a copy of the model.
        const OptimizerSpec* spec = optimizer_spec(type.opt_kind);
        if (!spec) throw NotLowered("an optimiser of kind " + type.opt_kind, span);
        v.kind = Val::Kind::optimizer;
        v.type = type.opt_kind;
        for (const auto& [name, fallback] : spec->settings) {
          v.names.push_back(name);
          v.items.push_back(input(path + "." + name, Type::scalar(ElemKind::f32), span));
        }
        v.names.push_back("step");
        v.items.push_back(input(path + ".step", Type::scalar(ElemKind::f32), span));
        for (const auto& state : spec->state) {
          v.names.push_back(state);
          v.items.push_back(
              input(path + "." + state, Type::of(Type::Kind::model, type.name), span));
        }
        return v;
      }
      case Type::Kind::integer:
      case Type::Kind::floating: {
        Type t = Type::scalar(type.is(Type::Kind::integer) ? ElemKind::i32 : ElemKind::f32);
        return input(path, t, span);
      }
      default:
        throw NotLowered("a parameter of type " + type.str() + " on a device", span);
    }
  }

  // The tensors of a `mut` structure the code changed, as named outputs.
  void output_updates(const std::string& name, const Val& was, const Val& now) {
    std::vector<int> old_nodes, nodes;
    std::vector<std::string> paths;
    leaves(was, "", old_nodes, nullptr);
    leaves(now, "", nodes, &paths);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (i < old_nodes.size() && old_nodes[i] == nodes[i]) continue;
      g_.outputs.push_back(nodes[i]);
      g_.updated.push_back(name + "." + paths[i]);
    }
  }

  void flatten_outputs(const Val& v) {
    if (v.kind == Val::Kind::tuple) {
      for (const auto& item : v.items) flatten_outputs(item);
    } else if (v.kind == Val::Kind::tensor) {
      g_.outputs.push_back(v.node);
    } else if (v.kind == Val::Kind::number) {
      g_.outputs.push_back(constant(v.number, v.integer ? ElemKind::i32 : ElemKind::f32, {}));
    } else if (v.kind == Val::Kind::model || v.kind == Val::Kind::record) {
      leaves(v, "", g_.outputs, nullptr);  // a gradient, a record: its tensors, in order
    }
  }

  Val body(const check::FunctionInfo& fn, Scope& scope) {
    if (fn.item->expr_body) return value(*fn.item->expr_body, scope);
    block(fn.item->body, scope);
    return scope.result;
  }

  void block(const std::vector<Stmt>& stmts, Scope& scope) {
    for (const auto& s : stmts) {
      if (scope.returned) return;
      statement(s, scope);
    }
  }

  void statement(const Stmt& s, Scope& scope) {
    switch (s.kind) {
      case StmtKind::expr:
        (void)value(*s.value, scope);
        return;
      case StmtKind::assign: {
        const Val v = value(*s.value, scope);
        if (s.targets.size() == 1) {
          if (s.targets[0]->kind == ExprKind::member) {  // m.w = ..., m.enc.w = ...
            assign_field(*s.targets[0], v, scope);
            return;
          }
          scope.vars[s.targets[0]->text] = v;
        } else {
          for (std::size_t i = 0; i < s.targets.size(); ++i)
            scope.vars[s.targets[i]->text] = v.items.at(i);
        }
        return;
      }
      case StmtKind::return_:
        scope.result = s.value ? value(*s.value, scope) : Val{};
        scope.returned = true;
        return;
      case StmtKind::for_: {
        // A static range: unrolled.
        const Expr& range = *s.value;
        std::int64_t lo = 0, hi = 0;
        if (range.items.size() == 2) {
          hi = static_cast<std::int64_t>(number(*range.items[1], scope));
        } else {
          lo = static_cast<std::int64_t>(number(*range.items[1], scope));
          hi = static_cast<std::int64_t>(number(*range.items[2], scope));
        }
        for (std::int64_t i = lo; i < hi && !scope.returned; ++i) {
          Val v;
          v.kind = Val::Kind::number;
          v.number = static_cast<double>(i);
          v.integer = true;
          scope.vars[s.loop_var] = v;
          block(s.body, scope);
        }
        return;
      }
      case StmtKind::if_:
        block(number(*s.value, scope) != 0 ? s.body : s.else_body, scope);
        return;
      case StmtKind::break_:
        throw NotLowered("`break` in device code", s.span);
    }
  }

  double number(const Expr& e, Scope& scope) {
    const Val v = value(e, scope);
    if (v.kind != Val::Kind::number)
      throw NotLowered("a value the device needs to know statically", e.span);
    return v.number;
  }

  Type type_of(const Expr& e, const Scope& scope) const {
    return substitute(p_.type_of(e), scope.subst);
  }

  int constant(double x, ElemKind kind, syntax::Span span) {
    Node n;
    n.op = Op::constant;
    n.number = x;
    n.type = Type::scalar(kind);
    n.span = span;
    return g_.add(n);
  }

  // A value as a tensor node: numbers become constants of the given kind.
  int tensor(const Val& v, ElemKind kind, syntax::Span span) {
    if (v.kind == Val::Kind::tensor) return v.node;
    if (v.kind == Val::Kind::number) return constant(v.number, kind, span);
    throw NotLowered("a value that isn't a tensor", span);
  }

  static Val node_val(int id) {
    Val v;
    v.kind = Val::Kind::tensor;
    v.node = id;
    return v;
  }

  Val node(Node n) {
    Val v;
    v.kind = Val::Kind::tensor;
    v.node = g_.add(std::move(n));
    return v;
  }

  Node make(Op op, const Expr& e, const Scope& scope, std::vector<int> in) {
    Node n;
    n.op = op;
    n.in = std::move(in);
    n.type = node_type(e, scope);
    n.span = e.span;
    return n;
  }

  // The tensor type of an expression's node: a controller's number computed
  // in a graph is a scalar.
  Type node_type(const Expr& e, const Scope& scope) const {
    Type t = type_of(e, scope);
    if (t.is(Type::Kind::integer)) return Type::scalar(ElemKind::i32);
    if (t.is(Type::Kind::floating)) return Type::scalar(ElemKind::f32);
    return t;
  }

  Val value(const Expr& e, Scope& scope);
  Val binary(const Expr& e, Scope& scope);
  void changed(const Expr& target, Val v, Scope& scope);
  void assign_field(const Expr& target, const Val& v, Scope& scope);
  Val dropout(const Expr& e, Scope& scope);
  int differentiating_ = 0;  // inside value_and_grad/grad: dropout is active
  int dropout_sites_ = 0;    // each site its own random stream
  int seed_input_ = -1;      // the graph's `$seed` input, once a dropout needs it
  Val differentiate(const std::string& name, const Expr& e, Scope& scope);
  Val update(const Expr& e, Scope& scope);
  int elementwise(Binary op, int a, int b, syntax::Span span);
  int global_norm(const Val& g, syntax::Span span);
  Val structure_arithmetic(Binary op, const Val& l, const Val& r, syntax::Span span);
  Val call(const Expr& e, Scope& scope);
  Val builtin(const std::string& name, const Expr& e, Scope& scope);

  const check::TypedProgram& p_;
  Graph g_;
};

Val Lowerer::value(const Expr& e, Scope& scope) {
  if (bound)
    if (const auto it = bound->find(&e); it != bound->end()) return scope.vars.at(it->second);
  switch (e.kind) {
    case ExprKind::integer:
    case ExprKind::floating:
    case ExprKind::boolean: {
      Val v;
      v.kind = Val::Kind::number;
      v.number = e.kind == ExprKind::boolean ? (e.bool_value ? 1 : 0) : e.float_value;
      v.integer = e.kind != ExprKind::floating;
      return v;
    }
    case ExprKind::name: {
      if (auto it = scope.vars.find(e.text); it != scope.vars.end()) return it->second;
      if (auto it = p_.dims.find(e.text); it != p_.dims.end() && it->second) {
        Val v;
        v.kind = Val::Kind::number;
        v.number = static_cast<double>(*it->second);
        v.integer = true;
        return v;
      }
      if (p_.functions.count(e.text)) {
        Val v;
        v.kind = Val::Kind::function;
        v.type = e.text;
        return v;
      }
      // A generic axis used as a number: its size at run time.
      const Axis axis = substitute(Axis::generic(e.text), scope.subst);
      if (axis.single() && axis.factors[0].kind == Factor::Kind::literal) {
        Val v;
        v.kind = Val::Kind::number;
        v.number = static_cast<double>(axis.factors[0].value);
        v.integer = true;
        return v;
      }
      Node n;
      n.op = Op::size;
      n.name = axis.str();
      n.type = Type::scalar(ElemKind::i32);
      n.span = e.span;
      return node(n);
    }
    case ExprKind::member: {
      const Val base = value(*e.items[0], scope);
      if (const Val* field = base.field(e.text)) return *field;
      throw NotLowered("this field on a device", e.span);
    }
    case ExprKind::unary: {
      const Val x = value(*e.items[0], scope);
      if (x.kind == Val::Kind::number) {
        Val v = x;
        v.number = e.text == "not" ? (x.number == 0) : -x.number;
        return v;
      }
      Node n = make(Op::unary, e, scope, {tensor(x, ElemKind::f32, e.span)});
      if (e.text == "+") return x;
      n.sub = static_cast<int>(e.text == "not" ? Unary::logical_not : Unary::neg);
      return node(n);
    }
    case ExprKind::binary:
      return binary(e, scope);
    case ExprKind::call:
      return call(e, scope);
    case ExprKind::tuple: {
      Val v;
      v.kind = Val::Kind::tuple;
      for (const auto& item : e.items) v.items.push_back(value(*item, scope));
      return v;
    }
    case ExprKind::index: {
      if (!e.items.empty() && e.items.size() == 2 && e.kwargs.empty()) {
        const Val table = value(*e.items[0], scope);
        const Val ids = value(*e.items[1], scope);
        return node(make(Op::gather, e, scope, {table.node, ids.node}));
      }
      Val x = value(*e.items[0], scope);
      for (const auto& kw : e.kwargs) {
        const auto axis = static_cast<std::int64_t>(p_.axes.at(kw.value.get()).at(0));
        const Type base = g_.nodes[static_cast<std::size_t>(x.node)].type;
        if (kw.value->kind == ExprKind::slice) {
          // Static bounds: the checker gave the sliced axis a literal size.
          const auto& bounds = kw.value->items;
          const std::int64_t start =
              bounds[0] ? static_cast<std::int64_t>(number(*bounds[0], scope)) : 0;
          const Type whole = type_of(e, scope);
          Node n;
          n.op = Op::slice;
          n.in = {x.node};
          n.axes = {axis};
          n.span = e.span;
          n.type = base;
          const Axis& sliced = whole.axes.at(static_cast<std::size_t>(axis));
          if (!(sliced.single() && sliced.factors[0].kind == Factor::Kind::literal) || start < 0)
            throw NotLowered("a slice whose bounds aren't static", kw.value->span);
          n.ints = {start, start + sliced.factors[0].value};
          n.type.axes[static_cast<std::size_t>(axis)] = sliced;
          x = node(n);
          continue;
        }
        const double at = number(*kw.value, scope);
        Node n;
        n.op = Op::index;
        n.in = {x.node};
        n.axes = {axis};
        n.number = at;
        n.span = e.span;
        // The type: the input's without that axis.
        n.type = g_.nodes[static_cast<std::size_t>(x.node)].type;
        n.type.axes.erase(n.type.axes.begin() + n.axes[0]);
        x = node(n);
      }
      return x;
    }
    case ExprKind::list: {
      // A literal: its numbers, row by row.
      Node n;
      n.op = Op::literal;
      n.type = type_of(e, scope);
      n.span = e.span;
      std::vector<const Expr*> pending = {&e};
      while (!pending.empty()) {
        const Expr* item = pending.front();
        pending.erase(pending.begin());
        if (item->kind == ExprKind::list) {
          std::vector<const Expr*> inner;
          for (const auto& x : item->items) inner.push_back(x.get());
          pending.insert(pending.begin(), inner.begin(), inner.end());
        } else {
          n.values.push_back(number(*item, scope));
        }
      }
      return node(n);
    }
    default:
      throw NotLowered("this expression on a device", e.span);
  }
}

Val Lowerer::binary(const Expr& e, Scope& scope) {
  static const std::map<std::string, Binary> ops = {
      {"+", Binary::add},        {"-", Binary::sub},
      {"*", Binary::mul},        {"/", Binary::div},
      {"**", Binary::pow},       {"%", Binary::mod},
      {"//", Binary::floordiv},  {"<", Binary::lt},
      {"<=", Binary::le},        {">", Binary::gt},
      {">=", Binary::ge},        {"==", Binary::eq},
      {"!=", Binary::ne},        {"and", Binary::logical_and},
      {"or", Binary::logical_or}};
  if (e.text == "|>") throw NotLowered("a pipe on a device", e.span);
  const Val l = value(*e.items[0], scope);
  const Val r = value(*e.items[1], scope);
  if (l.kind == Val::Kind::model || r.kind == Val::Kind::model)
    return structure_arithmetic(ops.at(e.text), l, r, e.span);
  if (e.text == "@")
    return node(make(Op::matmul, e, scope,
                     {tensor(l, ElemKind::f32, e.span), tensor(r, ElemKind::f32, e.span)}));
  const auto op = ops.at(e.text);
  if (l.kind == Val::Kind::number && r.kind == Val::Kind::number) {
    // Static arithmetic on numbers, as the controller does it (Python's
    // rules, 64-bit ints); `and` and `or` as the reference's.
    const auto as_number = [](const Val& x) {
      return x.integer ? support::Number::of_int(static_cast<std::int64_t>(x.number))
                       : support::Number::of_float(x.number);
    };
    Val v;
    v.kind = Val::Kind::number;
    if (const auto order = support::python_compare(e.text, as_number(l), as_number(r))) {
      v.number = *order ? 1 : 0;
      v.integer = true;
      return v;
    }
    const auto folded = support::python_arith(e.text, as_number(l), as_number(r));
    if (folded.ok()) {
      v.number = folded.value.as_double();
      v.integer = folded.value.integer;
      return v;
    }
    if (folded.error == support::ArithError::division_by_zero)
      throw NotLowered("`" + e.text + "` divides by zero", e.span, diag::Code::E1509);
    if (folded.error == support::ArithError::overflow)
      throw NotLowered("`" + e.text + "` overflows 64 bits", e.span, diag::Code::E1510);
    if (op != Binary::logical_and && op != Binary::logical_or)
      throw NotLowered("`" + e.text + "` on static numbers", e.span);
    const bool a = l.number != 0, b = r.number != 0;  // static bools: 0 or 1
    v.number = (op == Binary::logical_and ? a && b : a || b) ? 1 : 0;
    v.integer = true;
    return v;
  }
  // A literal takes the element type the operation computes in: the
  // result's for arithmetic (an integer tensor times 1.5 is f32), the other
  // operand's for a comparison (a float literal against integers: f32).
  const Type& other = l.kind == Val::Kind::tensor ? g_.nodes[static_cast<std::size_t>(l.node)].type
                                                  : g_.nodes[static_cast<std::size_t>(r.node)].type;
  const Val& literal = l.kind == Val::Kind::tensor ? r : l;
  const ElemKind result = node_type(e, scope).elem.kind;
  ElemKind kind = result == ElemKind::boolean ? other.elem.kind : result;
  if (kind == ElemKind::index) kind = ElemKind::i32;
  if (literal.kind == Val::Kind::number && !literal.integer &&
      (kind == ElemKind::i32 || kind == ElemKind::boolean))
    kind = ElemKind::f32;
  Node n = make(Op::binary, e, scope, {tensor(l, kind, e.span), tensor(r, kind, e.span)});
  n.sub = static_cast<int>(op);
  return node(n);
}

Val Lowerer::call(const Expr& e, Scope& scope) {
  const Expr& callee = *e.items[0];
  if (callee.kind == ExprKind::index) {  // Index[C](x)
    Node n = make(Op::cast, e, scope, {tensor(value(*e.items[1], scope), ElemKind::i32, e.span)});
    return node(n);
  }
  const std::string& name = callee.text;
  const auto fn = p_.functions.find(name);
  if (fn == p_.functions.end()) return builtin(name, e, scope);
  // Inline the callee: its parameters bound to the arguments, its generic
  // axes to the caller's (as the graph sees them).
  Scope inner;
  for (const auto& [generic, axis] : p_.bindings.at(&e))
    inner.subst[generic] = substitute(axis, scope.subst);
  for (std::size_t i = 0; i < fn->second.params.size(); ++i) {
    const Expr& arg = *e.items[i + 1];
    inner.vars[fn->second.item->params[i].name] =
        value(arg.kind == ExprKind::mut ? *arg.items[0] : arg, scope);
  }
  const Val result = body(fn->second, inner);
  // What the callee changed, `mut`, the caller's variable now holds.
  for (std::size_t i = 0; i < fn->second.params.size(); ++i) {
    const Expr& arg = *e.items[i + 1];
    if (arg.kind == ExprKind::mut)
      changed(*arg.items[0], inner.vars.at(fn->second.item->params[i].name), scope);
  }
  return result;
}

// `m.w = v`: the structure the name holds, with that field replaced (a
// model is a value: what other names hold is unchanged).
void Lowerer::assign_field(const Expr& target, const Val& v, Scope& scope) {
  std::vector<std::string> path;
  const Expr* at = &target;
  while (at->kind == ExprKind::member) {
    path.insert(path.begin(), at->text);
    at = at->items[0].get();
  }
  if (at->kind != ExprKind::name || !scope.vars.count(at->text))
    throw NotLowered("changing this field on a device", target.span);
  Val* field = &scope.vars.at(at->text);
  for (const auto& name : path) {
    auto it = std::find(field->names.begin(), field->names.end(), name);
    if (it == field->names.end()) throw NotLowered("changing this field on a device", target.span);
    field = &field->items[static_cast<std::size_t>(it - field->names.begin())];
  }
  if (v.kind == Val::Kind::number) {
    // A number into a tensor field: a constant of the field's type.
    const Type t = g_.nodes[static_cast<std::size_t>(field->node)].type;
    field->node = g_.add({.op = Op::fill, .number = v.number, .type = t, .span = target.span});
    return;
  }
  *field = v;
}

// dropout(x, rate=): the identity, except under value_and_grad/grad, where
// each element is zeroed with probability `rate` and the rest scaled by
// 1 / (1 - rate). The mask's randomness is keyed by the graph's `$seed`
// input, which the runner changes at every run, and the site's own stream.
Val Lowerer::dropout(const Expr& e, Scope& scope) {
  const Val x = value(*e.items[1], scope);
  if (!differentiating_) return x;
  double rate = 0.5;
  for (const auto& kw : e.kwargs)
    if (kw.name == "rate") rate = number(*kw.value, scope);
  if (rate <= 0) return x;
  const int xn = tensor(x, ElemKind::f32, e.span);
  const Type t = g_.nodes[static_cast<std::size_t>(xn)].type;
  if (seed_input_ < 0) {
    seed_input_ = g_.add(
        {.op = Op::input, .name = "$seed", .type = Type::scalar(ElemKind::i32), .span = e.span});
    g_.inputs.push_back(seed_input_);
  }
  Type uniform_type = t;
  uniform_type.elem = check::Elem{ElemKind::f32, {}, false};
  const int u = g_.add({.op = Op::random,
                        .in = {seed_input_},
                        .name = "uniform",
                        .ints = {0, ++dropout_sites_},
                        .values = {0.0, 1.0},
                        .type = uniform_type,
                        .span = e.span});
  Type mask_type = t;
  mask_type.elem = check::Elem{ElemKind::boolean, {}, false};
  const int keep = g_.add({.op = Op::binary,
                           .in = {u, constant(rate, ElemKind::f32, e.span)},
                           .sub = static_cast<int>(Binary::ge),
                           .type = mask_type,
                           .span = e.span});
  const int scaled =
      elementwise(Binary::mul, xn, constant(1.0 / (1.0 - rate), ElemKind::f32, e.span), e.span);
  return node_val(g_.add({.op = Op::where,
                          .in = {keep, scaled, constant(0, ElemKind::f32, e.span)},
                          .type = uniform_type,
                          .span = e.span}));
}

void Lowerer::changed(const Expr& target, Val v, Scope& scope) {
  if (target.kind != ExprKind::name) throw NotLowered("changing a sub-model in place", target.span);
  scope.vars[target.text] = std::move(v);
}

// value_and_grad(f, m, args...) and grad(...): f inlined, then its value
// differentiated with respect to every tensor of m.
Val Lowerer::differentiate(const std::string& name, const Expr& e, Scope& scope) {
  const auto& f = p_.functions.at(e.items[1]->text);
  Scope inner;
  for (const auto& [generic, axis] : p_.bindings.at(&e))
    inner.subst[generic] = substitute(axis, scope.subst);
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    const Expr& arg = *e.items[i + 2];
    inner.vars[f.item->params[i].name] =
        value(arg.kind == ExprKind::mut ? *arg.items[0] : arg, scope);
  }
  const Val model = inner.vars.at(f.item->params[0].name);
  ++differentiating_;
  const Val loss = body(f, inner);
  --differentiating_;
  const auto independent = [&] {
    return NotLowered(
        "`" + e.items[1]->text + "`'s value doesn't depend on the model's parameters", e.span,
        diag::Code::E1204,
        "differentiate a value computed from the model: a loss that uses its parameters");
  };
  if (loss.kind != Val::Kind::tensor) throw independent();
  std::vector<int> wrt;
  leaves(model, "", wrt, nullptr);
  std::vector<int> grads;
  try {
    grads = append_gradients(g_, loss.node, wrt, p_.dims);
  } catch (const NotDifferentiable& failure) {
    throw NotLowered(std::string(failure.what()) + " isn't supported yet", failure.span,
                     diag::Code::E1205);
  }
  bool any = false;
  for (std::size_t i = 0; i < grads.size(); ++i) {
    if (grads[i] >= 0) {
      any = true;
      continue;
    }
    // A parameter the value doesn't use: its gradient is zero.
    Node zero{
        .op = Op::fill, .type = g_.nodes[static_cast<std::size_t>(wrt[i])].type, .span = e.span};
    grads[i] = g_.add(std::move(zero));
  }
  if (!any) throw independent();
  std::size_t at = 0;
  const Val gradient = with_leaves(model, grads, at);
  if (name == "grad") return gradient;
  Val v;
  v.kind = Val::Kind::tuple;
  v.items = {loss, gradient};
  return v;
}

// update(mut m, mut opt, g): one optimiser step; m and opt rebound.
Val Lowerer::update(const Expr& e, Scope& scope) {
  const Expr& m_expr = *e.items[1]->items[0];
  const Expr& opt_expr = *e.items[2]->items[0];
  const Val m = value(m_expr, scope);
  Val opt = value(opt_expr, scope);
  const Val g = value(*e.items[3], scope);
  const OptimizerSpec* spec = optimizer_spec(opt.type);
  if (!spec) throw NotLowered("an optimiser of kind " + opt.type, e.span);
  OptimizerNodes nodes;
  for (const auto& [setting, fallback] : spec->settings)
    nodes.settings.push_back(opt.field(setting)->node);
  nodes.step = opt.field("step")->node;
  for (const auto& state : spec->state) {
    leaves(*opt.field(state), "", nodes.state.emplace_back(), nullptr);
  }
  std::vector<int> params, grads;
  leaves(m, "", params, nullptr);
  leaves(g, "", grads, nullptr);
  const auto updated = append_optimizer_step(g_, *spec, nodes, params, grads, e.span);
  std::size_t at = 0;
  changed(m_expr, with_leaves(m, updated, at), scope);
  for (std::size_t i = 0; i < opt.names.size(); ++i) {
    if (opt.names[i] == "step") opt.items[i].node = nodes.step;
    for (std::size_t k = 0; k < spec->state.size(); ++k)
      if (opt.names[i] == spec->state[k]) {
        std::size_t from = 0;
        opt.items[i] = with_leaves(opt.items[i], nodes.state[k], from);
      }
  }
  changed(opt_expr, opt, scope);
  return Val{};
}

// An elementwise node of two f32 tensors, taking the wider one's axes.
int Lowerer::elementwise(Binary op, int a, int b, syntax::Span span) {
  const Type& ta = g_.nodes[static_cast<std::size_t>(a)].type;
  const Type& tb = g_.nodes[static_cast<std::size_t>(b)].type;
  Type t = ta.axes.size() >= tb.axes.size() ? ta : tb;
  t.elem = check::Elem{ElemKind::f32, {}, false};
  return g_.add(
      {.op = Op::binary, .in = {a, b}, .sub = static_cast<int>(op), .type = t, .span = span});
}

// The gradient's global norm: sqrt of every tensor's sum of squares.
int Lowerer::global_norm(const Val& g, syntax::Span span) {
  std::vector<int> parts;
  leaves(g, "", parts, nullptr);
  int total = constant(0, ElemKind::f32, span);
  for (const int x : parts) {
    int squares = elementwise(Binary::mul, x, x, span);
    const Type t = g_.nodes[static_cast<std::size_t>(squares)].type;
    if (!t.axes.empty()) {
      std::vector<std::int64_t> axes;
      for (std::size_t k = 0; k < t.axes.size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
      squares = g_.add({.op = Op::reduce,
                        .in = {squares},
                        .sub = static_cast<int>(Reduce::sum),
                        .axes = axes,
                        .type = Type::scalar(ElemKind::f32),
                        .span = span});
    }
    total = elementwise(Binary::add, total, squares, span);
  }
  return g_.add({.op = Op::unary,
                 .in = {total},
                 .sub = static_cast<int>(Unary::sqrt),
                 .type = Type::scalar(ElemKind::f32),
                 .span = span});
}

// A structure combined elementwise, tensor by tensor, with another of the
// same shape or with a scalar: g1 + g2, g * 0.5.
Val Lowerer::structure_arithmetic(Binary op, const Val& l, const Val& r, syntax::Span span) {
  const Val& shape = l.kind == Val::Kind::model ? l : r;
  std::vector<int> left, right, out;
  const auto operand = [&](const Val& v, std::vector<int>& nodes) {
    if (v.kind == Val::Kind::model) {
      leaves(v, "", nodes, nullptr);
      return;
    }
    const int scalar = tensor(v, ElemKind::f32, span);
    std::vector<int> all;
    leaves(shape, "", all, nullptr);
    nodes.assign(all.size(), scalar);
  };
  operand(l, left);
  operand(r, right);
  for (std::size_t i = 0; i < left.size(); ++i)
    out.push_back(elementwise(op, left[i], right[i], span));
  std::size_t at = 0;
  return with_leaves(shape, out, at);
}

Val Lowerer::builtin(const std::string& name, const Expr& e, Scope& scope) {
  static const std::map<std::string, Unary> unaries = {
      {"exp", Unary::exp},   {"log", Unary::log},   {"sqrt", Unary::sqrt},
      {"abs", Unary::abs},   {"tanh", Unary::tanh}, {"sigmoid", Unary::sigmoid},
      {"relu", Unary::relu}, {"gelu", Unary::gelu}};
  static const std::map<std::string, Reduce> reductions = {
      {"sum", Reduce::sum}, {"mean", Reduce::mean},           {"max", Reduce::max},
      {"min", Reduce::min}, {"logsumexp", Reduce::logsumexp}, {"var", Reduce::var},
      {"std", Reduce::std}};
  const Type result = type_of(e, scope);
  const auto arg = [&](std::size_t i, ElemKind kind) {
    return tensor(value(*e.items[i + 1], scope), kind, e.span);
  };
  const auto keep = [&] {
    for (const auto& kw : e.kwargs)
      if (kw.name == "keep") return kw.value->kind == ExprKind::boolean && kw.value->bool_value;
    return false;
  };
  const auto positions = [&] {
    std::vector<std::int64_t> out;
    for (const auto k : p_.axes.at(&e)) out.push_back(static_cast<std::int64_t>(k));
    return out;
  };
  if (auto it = unaries.find(name); it != unaries.end()) {
    Node n = make(Op::unary, e, scope, {arg(0, result.elem.kind)});
    n.sub = static_cast<int>(it->second);
    return node(n);
  }
  if (name == "f32" || name == "bf16" || name == "f16" || name == "i32")
    return node(make(Op::cast, e, scope, {arg(0, result.elem.kind)}));
  if (name == "dropout") return dropout(e, scope);
  if (name == "matmul")
    return node(make(Op::matmul, e, scope, {arg(0, ElemKind::f32), arg(1, ElemKind::f32)}));
  if (name == "where") {
    const Val c = value(*e.items[1], scope);
    return node(make(Op::where, e, scope,
                     {tensor(c, ElemKind::boolean, e.span), arg(1, result.elem.kind),
                      arg(2, result.elem.kind)}));
  }
  if (name == "maximum" || name == "minimum") {
    Node n = make(Op::binary, e, scope, {arg(0, result.elem.kind), arg(1, result.elem.kind)});
    n.sub = static_cast<int>(name == "maximum" ? Binary::maximum : Binary::minimum);
    return node(n);
  }
  if (auto it = reductions.find(name); it != reductions.end()) {
    Node n = make(Op::reduce, e, scope, {arg(0, ElemKind::f32)});
    n.sub = static_cast<int>(it->second);
    n.axes = positions();
    n.keep = keep();
    if (n.axes.empty())
      return value(*e.items[1], scope);  // a reduction over no axis: a scalar's identity
    return node(n);
  }
  if (name == "argmax" || name == "softmax" || name == "log_softmax") {
    Node n = make(name == "argmax"    ? Op::argmax
                  : name == "softmax" ? Op::softmax
                                      : Op::log_softmax,
                  e, scope, {arg(0, ElemKind::f32)});
    n.axes = positions();
    n.keep = keep();
    return node(n);
  }
  if (name == "cross_entropy") {
    Node n = make(Op::cross_entropy, e, scope, {arg(0, ElemKind::f32), arg(1, ElemKind::i32)});
    n.axes = positions();
    return node(n);
  }
  if (name == "causal") return node(make(Op::causal, e, scope, {arg(0, ElemKind::f32)}));
  if (name == "zeros" || name == "ones" || name == "full") {
    Node n = make(Op::fill, e, scope, {});
    n.number = name == "ones" ? 1.0 : name == "full" ? value(*e.items[2], scope).number : 0.0;
    return node(n);
  }
  if (name == "clip") {
    Node lo = make(Op::binary, e, scope, {arg(0, result.elem.kind), arg(1, result.elem.kind)});
    lo.sub = static_cast<int>(Binary::maximum);
    const Val low = node(lo);
    Node hi = make(Op::binary, e, scope, {low.node, arg(2, result.elem.kind)});
    hi.sub = static_cast<int>(Binary::minimum);
    return node(hi);
  }
  if (name == "sort" || name == "argsort" || name == "layer_norm" || name == "rms_norm") {
    Node n = make(name == "sort"         ? Op::sort
                  : name == "argsort"    ? Op::argsort
                  : name == "layer_norm" ? Op::layer_norm
                                         : Op::rms_norm,
                  e, scope, {arg(0, ElemKind::f32)});
    n.axes = positions();
    return node(n);
  }
  if (name == "concat" || name == "stack") {
    std::vector<int> in;
    for (std::size_t i = 1; i < e.items.size(); ++i) in.push_back(arg(i - 1, result.elem.kind));
    Node n = make(name == "concat" ? Op::concat : Op::stack, e, scope, std::move(in));
    if (name == "concat") n.axes = positions();
    return node(n);
  }
  if (name == "pad") {
    Node n = make(Op::pad, e, scope, {arg(0, ElemKind::f32)});
    n.axes = positions();
    n.ints = {0, 0};
    for (const auto& kw : e.kwargs) {
      if (kw.name == "before") n.ints[0] = kw.value->int_value;
      if (kw.name == "after") n.ints[1] = kw.value->int_value;
      if (kw.name == "value") n.number = number(*kw.value, scope);
    }
    return node(n);
  }
  if (name == "arange") return node(make(Op::arange, e, scope, {}));
  if (name == "normal" || name == "uniform") {
    Node n = make(Op::random, e, scope, {});
    n.name = name;
    n.values = name == "normal" ? std::vector<double>{0.0, 1.0} : std::vector<double>{0.0, 1.0};
    n.ints = {0};
    for (const auto& kw : e.kwargs) {
      const double v = number(*kw.value, scope);
      if (kw.name == "mean" || kw.name == "low") n.values[0] = v;
      if (kw.name == "std" || kw.name == "high") n.values[1] = v;
      if (kw.name == "seed") n.ints[0] = static_cast<std::int64_t>(v);
    }
    return node(n);
  }
  if (name == "rearrange" || name == "reduce" || name == "repeat" || name == "einsum") {
    const auto& plan = p_.patterns.at(&e);
    std::vector<int> in;
    for (std::size_t t = 0; t < plan.inputs.size(); ++t) in.push_back(arg(t, ElemKind::f32));
    Node n = make(name == "einsum" ? Op::einsum : Op::einops, e, scope, std::move(in));
    n.groups_in = plan.inputs;
    n.groups_out = plan.output;
    for (const auto& [k, axis] : plan.sizes) n.sizes[k] = substitute(axis, scope.subst);
    n.name = plan.op;
    return node(n);
  }
  if (name == "value_and_grad" || name == "grad") return differentiate(name, e, scope);
  if (name == "update") return update(e, scope);
  if (name == "norm") return node_val(global_norm(value(*e.items[1], scope), e.span));
  if (name == "clip_norm") {
    // torch.nn.utils.clip_grad_norm_: scaled by max / (norm + 1e-6), at most 1.
    const Val g = value(*e.items[1], scope);
    const int limit = tensor(value(*e.items[2], scope), ElemKind::f32, e.span);
    const int coef = elementwise(Binary::div, limit,
                                 elementwise(Binary::add, global_norm(g, e.span),
                                             constant(1e-6, ElemKind::f32, e.span), e.span),
                                 e.span);
    const int capped =
        elementwise(Binary::minimum, coef, constant(1, ElemKind::f32, e.span), e.span);
    Val scale;
    scale.kind = Val::Kind::tensor;
    scale.node = capped;
    return structure_arithmetic(Binary::mul, g, scale, e.span);
  }
  throw NotLowered("`" + name + "` isn't lowered to the IR yet", e.span);
}

}  // namespace

Graph lower_function(const check::TypedProgram& program, const std::string& function) {
  return Lowerer(program).run(function);
}

Graph lower_expression(const check::TypedProgram& program, const syntax::Expr& e,
                       const std::map<std::string, check::Type>& variables,
                       const std::map<const syntax::Expr*, std::string>& bound) {
  Lowerer lowerer(program);
  lowerer.bound = &bound;
  return lowerer.expression(e, variables);
}

}  // namespace ss::ir
