#include <algorithm>
#include <map>

#include "diag/arithmetic.hpp"
#include "lower/lowerer.hpp"
#include "support/scalar_arith.hpp"
#include "types/binary_functions.hpp"

namespace ss::lower::detail {

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
      if (p_.stacks.count(p_.type_of(*e.items[0]).name)) {  // `m.blocks[2]`: a layer
        const Val stack = value(*e.items[0], scope);
        if (const auto at = p_.axes.find(&e); at != p_.axes.end())
          return stack.items.at(at->second.at(0));
        // An unrolled loop's number: known now.
        const auto count = static_cast<std::int64_t>(stack.items.size());
        const Val at = value(*e.items[1], scope);
        if (at.kind != Val::Kind::number)
          throw NotLowered("a stack's index known only when the code runs", e.items[1]->span,
                           diag::Code::E1513,
                           "index with a literal, a sized dim or an unrolled loop's number "
                           "(`for i in range(L)`); to run every layer, loop: `for k in m.blocks:`");
        const auto k = static_cast<std::int64_t>(at.number);
        if (k < -count || k >= count)
          throw NotLowered("layer " + std::to_string(k) + " of a stack of " + std::to_string(count),
                           e.items[1]->span, diag::Code::E1513,
                           "a stack of " + std::to_string(count) + " has layers 0 to " +
                               std::to_string(count - 1));
        return stack.items.at(static_cast<std::size_t>(k < 0 ? k + count : k));
      }
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
          std::int64_t start = bounds[0] ? static_cast<std::int64_t>(number(*bounds[0], scope)) : 0;
          if (start < 0)  // counted from the end of an axis of static size
            if (const auto size = types::static_size(
                    substitute(base.axes.at(static_cast<std::size_t>(axis)), scope.subst), p_.dims))
              start += *size;
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
  static const std::map<std::string, Binary> ops = [] {  // types/binary.def's operators
    std::map<std::string, Binary> m;
    const auto& rows = types::binary_functions();
    for (std::size_t k = 0; k < rows.size(); ++k)
      if (rows[k].spelled == types::Spelled::operator_) m[rows[k].written] = Binary(k);
    return m;
  }();
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
    if (const auto mistake = diag::arithmetic_mistake(e.text, folded.error))
      throw NotLowered(mistake->message, e.span, mistake->code, mistake->help);
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

void Lowerer::changed(const Expr& target, Val v, Scope& scope) {
  if (target.kind != ExprKind::name) throw NotLowered("changing a sub-model in place", target.span);
  scope.vars[target.text] = std::move(v);
}

}  // namespace ss::lower::detail

namespace ss::lower {

ir::Graph lower_function(const check::TypedProgram& program, const std::string& function) {
  return detail::Lowerer(program).run(function);
}

ir::Graph lower_expression(const check::TypedProgram& program, const syntax::Expr& e,
                           const std::map<std::string, types::Type>& variables,
                           const std::map<const syntax::Expr*, std::string>& bound) {
  detail::Lowerer lowerer(program);
  lowerer.bound = &bound;
  return lowerer.expression(e, variables);
}

}  // namespace ss::lower
