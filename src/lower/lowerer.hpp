// Lowering's private part, shared by its files: the value a name holds
// while a device function is lowered, and the Lowerer that walks the
// checked tree (lower_device.cpp: expressions, statements and calls;
// lower_training.cpp: dropout, gradients and optimiser steps;
// lower_builtins.cpp: the built-in functions).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/attention.hpp"
#include "ir/ops.hpp"
#include "ir/optimizers.hpp"
#include "lower/lower.hpp"

namespace ss::lower::detail {

using namespace ir;

using syntax::Expr;
using syntax::ExprKind;
using syntax::Stmt;
using syntax::StmtKind;
using types::Axis;
using types::ElemKind;
using types::Factor;
using types::Type;
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
inline void leaves(const Val& v, const std::string& path, std::vector<int>& nodes,
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
inline Val with_leaves(const Val& shape, const std::vector<int>& nodes, std::size_t& at) {
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
  // Whether a device function's built-in `name` has a lowering rule.
  static bool lowers(const std::string& name);
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
    fuse_attention(g_);    // softmax(einsum(q, k) * c) einsum v: one node (ir/attention.hpp)
    merge_duplicates(g_);  // `f(x) * f(x)`: f once, and its gradient once
    drop_unused(g_);       // a gradient's shares for the data, values computed and never returned
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
    bool broken = false;  // a `break` ran: the unrolled loop around it stops
    int unrolled = 0;     // how many unrolled loops are around the code
  };

  // An input per tensor the parameter holds: a model's parameters, a
  // batch's or record's fields.
  Val input(const std::string& path, const Type& type, diag::Span span) {
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
      if (scope.returned || scope.broken) return;
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
        if (const Type over = p_.type_of(*s.value);
            over.is(Type::Kind::slices) || p_.stacks.count(over.name)) {
          scan(s, scope);
          return;
        }
        // A static range: unrolled.
        const Expr& range = *s.value;
        std::int64_t lo = 0, hi = 0;
        if (range.items.size() == 2) {
          hi = static_cast<std::int64_t>(number(*range.items[1], scope));
        } else {
          lo = static_cast<std::int64_t>(number(*range.items[1], scope));
          hi = static_cast<std::int64_t>(number(*range.items[2], scope));
        }
        ++scope.unrolled;
        for (std::int64_t i = lo; i < hi && !scope.returned; ++i) {
          Val v;
          v.kind = Val::Kind::number;
          v.number = static_cast<double>(i);
          v.integer = true;
          scope.vars[s.loop_var] = v;
          block(s.body, scope);
          if (scope.broken) {  // static: device code branches only on static values
            scope.broken = false;
            break;
          }
        }
        --scope.unrolled;
        return;
      }
      case StmtKind::if_:
        block(number(*s.value, scope) != 0 ? s.body : s.else_body, scope);
        return;
      case StmtKind::break_:
        if (scope.unrolled == 0) throw NotLowered("`break` outside an unrolled loop", s.span);
        scope.broken = true;
        return;
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

  int constant(double x, ElemKind kind, diag::Span span) {
    Node n;
    n.op = Op::constant;
    n.number = x;
    n.type = Type::scalar(kind);
    n.span = span;
    return g_.add(n);
  }

  // A value as a tensor node: numbers become constants of the given kind.
  int tensor(const Val& v, ElemKind kind, diag::Span span) {
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
  Val window_op(const std::string& name, const Expr& e, Scope& scope);  // lower_windows.cpp
  void scan(const Stmt& s, Scope& scope);  // lower_scans.cpp: a loop over layers or slices
  int differentiating_ = 0;                // inside value_and_grad/grad: dropout is active
  int dropout_sites_ = 0;                  // each site its own random stream
  int seed_input_ = -1;                    // the graph's `$seed` input, once a dropout needs it
  Val differentiate(const std::string& name, const Expr& e, Scope& scope);
  Val update(const Expr& e, Scope& scope);
  int elementwise(Binary op, int a, int b, diag::Span span);
  int global_norm(const Val& g, diag::Span span);
  Val structure_arithmetic(Binary op, const Val& l, const Val& r, diag::Span span);
  Val call(const Expr& e, Scope& scope);
  Val builtin(const std::string& name, const Expr& e, Scope& scope);
  // lower_builtins.cpp: each built-in a device function may call, by name,
  // and the rule that lowers it (builtin_lowering.hpp asks).
  using BuiltinRule = Val (Lowerer::*)(const std::string& name, const Expr& e, Scope& scope);
  static const std::map<std::string, BuiltinRule>& builtin_rules();
  int builtin_arg(const Expr& e, Scope& scope, std::size_t i, ElemKind kind);
  std::vector<std::int64_t> builtin_axes(const Expr& e) const;  // `over=`'s positions
  Val unary_function_rule(const std::string& name, const Expr& e, Scope& scope);
  Val cast_rule(const std::string& name, const Expr& e, Scope& scope);
  Val dropout_rule(const std::string& name, const Expr& e, Scope& scope);
  Val matmul_rule(const std::string& name, const Expr& e, Scope& scope);
  Val where_rule(const std::string& name, const Expr& e, Scope& scope);
  Val binary_function_rule(const std::string& name, const Expr& e, Scope& scope);
  Val clip_rule(const std::string& name, const Expr& e, Scope& scope);
  Val reduction_rule(const std::string& name, const Expr& e, Scope& scope);
  Val along_axis_rule(const std::string& name, const Expr& e, Scope& scope);
  Val cross_entropy_rule(const std::string& name, const Expr& e, Scope& scope);
  Val causal_rule(const std::string& name, const Expr& e, Scope& scope);
  Val fill_rule(const std::string& name, const Expr& e, Scope& scope);
  Val join_rule(const std::string& name, const Expr& e, Scope& scope);
  Val pad_rule(const std::string& name, const Expr& e, Scope& scope);
  Val arange_rule(const std::string& name, const Expr& e, Scope& scope);
  Val random_rule(const std::string& name, const Expr& e, Scope& scope);
  Val pattern_rule(const std::string& name, const Expr& e, Scope& scope);
  Val update_rule(const std::string& name, const Expr& e, Scope& scope);
  Val norm_rule(const std::string& name, const Expr& e, Scope& scope);
  Val clip_norm_rule(const std::string& name, const Expr& e, Scope& scope);
  Val slices_rule(const std::string& name, const Expr& e, Scope& scope);

  const check::TypedProgram& p_;
  Graph g_;
};

}  // namespace ss::lower::detail
