// Operators: unary and binary arithmetic with broadcasting, comparisons and
// logic, element types unified, and `@`.
#include <algorithm>

#include "check/checker_impl.hpp"

namespace ss::check {

Type Checker::unary_expr(const Expr& e, FnCtx& ctx) {
  const Type t = expr(*e.items[0], ctx);
  if (t.is_error()) return t;
  if (e.text == "not") {
    if (t.is_tensor() && t.elem.kind == ElemKind::boolean) return t;
    r_.error(Code::E0504, e.items[0]->span, "`not` needs a bool, not " + t.str(), "not a bool")
        .help = "compare first: `not (x > 0)`";
    return Type::error();
  }
  if (t.is_scalar_number()) return t;
  if (t.is_tensor() && t.elem.kind != ElemKind::boolean) {
    if (t.elem.kind == ElemKind::index) {
      Type out = t;
      out.elem = Elem{ElemKind::i32, {}, false};
      return out;
    }
    return t;
  }
  if (t.is(Type::Kind::model) && e.text == "-") return t;
  r_.error(Code::E0503, e.items[0]->span, "`" + e.text + "` needs a number, not " + t.str(),
           "not a number")
      .help = t.is_tensor() ? "cast it first: `f32(x)`" : "arithmetic works on tensors and numbers";
  return Type::error();
}

Type Checker::binary_expr(const Expr& e, FnCtx& ctx) {
  const std::string& op = e.text;
  const Expr& le = *e.items[0];
  const Expr& re = *e.items[1];
  if (op == "|>") {
    const Type l = expr(le, ctx);
    if (re.kind == ExprKind::call) return call_expr(re, ctx, &l, le.span, nullptr);
    if (re.kind == ExprKind::name) {
      // `data |> whole`: the stage without parentheses.
      syntax::Expr call;
      call.kind = ExprKind::call;
      call.span = re.span;
      auto callee = std::make_unique<Expr>();
      callee->kind = ExprKind::name;
      callee->span = re.span;
      callee->text = re.text;
      call.items.push_back(std::move(callee));
      return call_expr(call, ctx, &l, le.span, nullptr);
    }
    r_.error(Code::E1404, re.span, "`|>` feeds a value into a call, not into this", "not a call")
        .help = "write a stage: `data |> shuffle(seed=0) |> batches(64)`";
    return Type::error();
  }
  const Type l = expr(le, ctx);
  const Type r = expr(re, ctx);
  if (l.is_error() || r.is_error()) return Type::error();
  if (op == "@") return matmul(e.span, l, r, le.span, re.span, ctx);
  if (op == "and" || op == "or") {
    const Type lt = as_tensor(l), rt = as_tensor(r);
    for (const auto* side : {&lt, &rt}) {
      if (!side->is_tensor() || side->elem.kind != ElemKind::boolean) {
        r_.error(Code::E0504, side == &lt ? le.span : re.span,
                 "`" + op + "` needs bools, not " + side->str(), "not a bool")
            .help = "compare first: `(x > 0) " + op + " (y > 0)`";
        return Type::error();
      }
    }
    auto axes = broadcast(lt.axes, rt.axes, e.span, le.span, re.span, op.c_str());
    if (!axes) return Type::error();
    Type out = Type::tensor(std::move(*axes), Elem{ElemKind::boolean, {}, false});
    out.static_value = l.static_value && r.static_value;
    return out;
  }
  Type out = arithmetic(e, op, l, r, le.span, re.span);
  note_axes(out, e.span, ctx);
  return out;
}

Type Checker::arithmetic(const Expr& e, const std::string& op, const Type& l, const Type& r,
                         Span ls, Span rs) {
  const bool comparison =
      op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=";
  // Gradients and models: g1 + g2, g * s.
  if (l.is(Type::Kind::model) || r.is(Type::Kind::model)) {
    const bool both = l.is(Type::Kind::model) && r.is(Type::Kind::model);
    if (both && l.name == r.name && (op == "+" || op == "-")) return l;
    const Type& scalar = l.is(Type::Kind::model) ? r : l;
    const bool scaling = !both && (op == "*" || (op == "/" && l.is(Type::Kind::model))) &&
                         (scalar.is_scalar_number() || (scalar.is_tensor() && scalar.axes.empty()));
    if (scaling) return l.is(Type::Kind::model) ? l : r;
    r_.error(Code::E0505, e.span, "`" + op + "` on " + l.str() + " and " + r.str(), "not defined")
        .help = "gradients add (`g1 + g2`) and scale by a number (`g * 0.5`)";
    return Type::error();
  }
  // Plain numbers stay numbers: the controller's ints and floats, dims' sizes.
  if (l.is_scalar_number() && r.is_scalar_number()) {
    Type out = Type::of(comparison ? Type::Kind::integer
                        : (l.is(Type::Kind::floating) || r.is(Type::Kind::floating) || op == "/")
                            ? Type::Kind::floating
                            : Type::Kind::integer);
    if (comparison) out = Type::scalar(ElemKind::boolean);
    out.static_value = l.static_value && r.static_value;
    return out;
  }
  if (l.is(Type::Kind::string) && r.is(Type::Kind::string) &&
      (op == "+" || op == "==" || op == "!=")) {
    return op == "+" ? l : Type::scalar(ElemKind::boolean);
  }
  const Type lt = as_tensor(l), rt = as_tensor(r);
  for (const auto* side : {&lt, &rt}) {
    if (!side->is_tensor()) {
      r_.error(Code::E0505, side == &lt ? ls : rs,
               "`" + op + "` needs tensors or numbers, not " + side->str(),
               "this is " + side->str())
          .help = side->is(Type::Kind::batch) ? "take a field of the batch: `batch.x`"
                                              : "arithmetic works on tensors and numbers";
      return Type::error();
    }
  }
  auto axes = broadcast(lt.axes, rt.axes, e.span, ls, rs, op.c_str());
  if (!axes) return Type::error();
  Elem elem;
  if (comparison) {
    if (lt.elem.kind == ElemKind::index && rt.elem.kind == ElemKind::index && lt.elem.index_of &&
        rt.elem.index_of && !axes_match(*lt.elem.index_of, *rt.elem.index_of)) {
      r_.error(Code::E0506, e.span,
               "`" + op + "` compares " + lt.elem.str() + " with " + rt.elem.str(),
               "indices into different dims")
          .help = "indices compare only within one dim";
      return Type::error();
    }
    const bool bools = lt.elem.kind == ElemKind::boolean || rt.elem.kind == ElemKind::boolean;
    if (bools && !(op == "==" || op == "!=")) {
      r_.error(Code::E0503, e.span, "`" + op + "` orders bools", "bools have no order").help =
          "cast first: `f32(b)`";
      return Type::error();
    }
    if (!bools && !unify_elems(lt.elem, rt.elem, e.span, op)) return Type::error();
    elem = Elem{ElemKind::boolean, {}, false};
  } else {
    if (lt.elem.kind == ElemKind::boolean || rt.elem.kind == ElemKind::boolean) {
      r_.error(Code::E0503, lt.elem.kind == ElemKind::boolean ? ls : rs, "`" + op + "` on bools",
               "a bool")
          .help = "cast to a number first: `f32(mask)`";
      return Type::error();
    }
    auto unified = unify_elems(lt.elem, rt.elem, e.span, op);
    if (!unified) return Type::error();
    elem = *unified;
    if (elem.kind == ElemKind::index) elem = Elem{ElemKind::i32, {}, elem.weak};
    if (op == "/" && elem.is_integer()) elem = Elem{ElemKind::f32, {}, elem.weak};
  }
  Type out = Type::tensor(std::move(*axes), elem);
  out.static_value = l.static_value && r.static_value;
  return out;
}

std::optional<Elem> Checker::unify_elems(const Elem& a, const Elem& b, Span span,
                                         const std::string& op) {
  if (a.weak && b.weak)
    return Elem{(a.is_float() || b.is_float()) ? ElemKind::f32 : ElemKind::i32, {}, true};
  if (a.weak || b.weak) {
    const Elem& strong = a.weak ? b : a;
    const Elem& weak = a.weak ? a : b;
    if (weak.is_float() && strong.is_integer()) return Elem{ElemKind::f32, {}, false};
    return strong;
  }
  if (a == b) return a;
  if (a.is_integer() && b.is_integer()) return Elem{ElemKind::i32, {}, false};
  r_.error(Code::E0502, span, "`" + op + "` mixes " + a.str() + " and " + b.str(),
           "different element types")
      .help = "cast one side: `" + b.str() + "(x)`" +
              std::string(a.is_float() && b.is_float() ? "" : " or `f32(x)`");
  return std::nullopt;
}

std::optional<std::vector<Axis>> Checker::broadcast(const std::vector<Axis>& a,
                                                    const std::vector<Axis>& b, Span span, Span ls,
                                                    Span rs, const char* what) {
  const std::size_t n = std::max(a.size(), b.size());
  std::vector<Axis> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    const bool has_a = k < a.size(), has_b = k < b.size();
    const Axis* x = has_a ? &a[a.size() - 1 - k] : nullptr;
    const Axis* y = has_b ? &b[b.size() - 1 - k] : nullptr;
    Axis& slot = out[n - 1 - k];
    if (!x)
      slot = *y;
    else if (!y)
      slot = *x;
    else if (axes_match(*x, *y))
      slot = (x->single() && x->factors[0].kind == Factor::Kind::literal) ? *y : *x;
    else if (x->is_literal(1))
      slot = *y;
    else if (y->is_literal(1))
      slot = *x;
    else {
      auto& d =
          r_.error(Code::E0601, span,
                   "`" + std::string(what) + "` aligns " + x->str() + " with " + y->str(), "");
      d.labels.clear();
      d.labels.push_back(r_.map().label(ls, axes_str(a), true));
      d.labels.push_back(r_.map().label(rs, axes_str(b), false));
      d.location = d.labels.front().start;
      d.help =
          "trailing axes line up and must be the same dim (or 1); " +
          std::string(static_size(*x) && static_size(*y) && *static_size(*x) == *static_size(*y)
                          ? "dims compare by name even when their sizes agree"
                          : "reorder with rearrange or add a size-1 axis with keep=true");
      return std::nullopt;
    }
  }
  return out;
}

Type Checker::matmul(Span span, const Type& l0, const Type& r0, Span ls, Span rs, FnCtx& ctx) {
  const Type l = as_tensor(l0), r = as_tensor(r0);
  for (const auto* side : {&l, &r}) {
    if (!side->is_tensor() || side->axes.empty()) {
      r_.error(Code::E0604, side == &l ? ls : rs,
               "`@` needs a tensor with an axis, not " + side->str(),
               side->is_tensor() ? "a scalar" : "not a tensor")
          .help =
          "`@` contracts the left's last axis with the right's first; scale a scalar with `*`";
      return Type::error();
    }
  }
  if (!axes_match(l.axes.back(), r.axes.front())) {
    auto& d = r_.error(
        Code::E0603, span, "`@` contracts " + l.axes.back().str() + " with " + r.axes.front().str(),
        "left ends in " + l.axes.back().str() + ", right starts with " + r.axes.front().str());
    d.help = "the left's last axis and the right's first must be the same dim";
    for (const auto& [name, model] : models_) {
      for (const auto& m : model.members) {
        if (m.is_param && m.type.is_tensor() && !m.type.axes.empty() &&
            axes_match(m.type.axes.front(), l.axes.back())) {
          // Name it as the program reaches it: `m.w2` suggests `m.w1`.
          const std::string right(r_.map().slice(rs));
          const auto dot = right.rfind('.');
          const std::string spelt =
              dot == std::string::npos ? m.name : right.substr(0, dot + 1) + m.name;
          d.help = "did you mean " + spelt + "? It is " + m.type.str() + ".";
          return Type::error();
        }
      }
    }
    return Type::error();
  }
  auto elem = unify_elems(l.elem, r.elem, span, "@");
  if (!elem) return Type::error();
  if (!elem->is_float()) {
    r_.error(Code::E0503, span, "`@` on " + elem->str() + " tensors", "not floats").help =
        "cast first: `f32(x)`";
    return Type::error();
  }
  std::vector<Axis> axes(l.axes.begin(), l.axes.end() - 1);
  axes.insert(axes.end(), r.axes.begin() + 1, r.axes.end());
  Type out = Type::tensor(std::move(axes), *elem);
  note_axes(out, span, ctx);
  return out;
}

}  // namespace ss::check
