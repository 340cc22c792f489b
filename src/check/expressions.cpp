// Expressions: names, operators with broadcasting, members, indexing, tensor
// literals and calls of the program's own functions.
#include <algorithm>

#include "check/checker_impl.hpp"
#include "support/nearest.hpp"

namespace ss::check {
namespace {

void generic_names(const Type& t, std::set<std::string>& out) {
  const auto add = [&](const Axis& a) {
    for (const auto& f : a.factors)
      if (f.kind == Factor::Kind::generic) out.insert(f.name);
  };
  for (const auto& a : t.axes) add(a);
  if (t.is(Type::Kind::batch)) add(t.batch_axis);
  for (const auto& item : t.items) generic_names(item, out);
}

}  // namespace

std::optional<std::int64_t> Checker::static_size(const Axis& a) const {
  std::int64_t n = 1;
  for (const auto& f : a.factors) {
    if (f.kind == Factor::Kind::literal) {
      n *= f.value;
    } else if (f.kind == Factor::Kind::dim) {
      const auto it = dims_.find(f.name);
      if (it == dims_.end() || !it->second.value) return std::nullopt;
      n *= *it->second.value;
    } else {
      return std::nullopt;
    }
  }
  return n;
}

bool Checker::axes_match(const Axis& a, const Axis& b) const {
  if (a == b) return true;
  // A literal size unifies with a named dim of that size.
  const bool a_literal = a.single() && a.factors[0].kind == Factor::Kind::literal;
  const bool b_literal = b.single() && b.factors[0].kind == Factor::Kind::literal;
  if (a_literal == b_literal) return false;
  const auto sa = static_size(a), sb = static_size(b);
  return sa && sb && *sa == *sb;
}

bool Checker::assignable(const Type& to, const Type& from) const {
  if (to.is_error() || from.is_error()) return true;
  if (to.is_tensor() && (from.is(Type::Kind::integer) || from.is(Type::Kind::floating)))
    return to.axes.empty();
  if (to.kind != from.kind) {
    return (to.is(Type::Kind::floating) && from.is(Type::Kind::integer)) ||
           (to.is_scalar_number() && from.is_tensor() && from.axes.empty());
  }
  switch (to.kind) {
    case Type::Kind::tensor: {
      if (to.axes.size() != from.axes.size()) return false;
      for (std::size_t i = 0; i < to.axes.size(); ++i)
        if (!axes_match(to.axes[i], from.axes[i])) return false;
      if (from.elem.weak) return to.elem.is_float() || !from.elem.is_float();
      if (to.elem.kind == ElemKind::index && from.elem.kind == ElemKind::index)
        return to.elem.index_of && from.elem.index_of &&
               axes_match(*to.elem.index_of, *from.elem.index_of);
      return to.elem == from.elem;
    }
    case Type::Kind::batch:
      return to.name == from.name && axes_match(to.batch_axis, from.batch_axis);
    case Type::Kind::tuple:
      if (to.items.size() != from.items.size()) return false;
      for (std::size_t i = 0; i < to.items.size(); ++i)
        if (!assignable(to.items[i], from.items[i])) return false;
      return true;
    case Type::Kind::optimizer:
      return to.name == from.name && to.opt_kind == from.opt_kind;
    default:
      return to.name == from.name;
  }
}

Type Checker::as_tensor(const Type& t) const {
  if (t.is(Type::Kind::integer)) return Type::tensor({}, Elem{ElemKind::i32, {}, true});
  if (t.is(Type::Kind::floating)) return Type::tensor({}, Elem{ElemKind::f32, {}, true});
  return t;
}

void Checker::note_axes(const Type& t, Span span, FnCtx& ctx) {
  if (!t.is_tensor()) return;
  std::map<std::string, int> seen;
  for (const auto& a : t.axes)
    for (const auto& f : a.factors)
      if (f.kind == Factor::Kind::generic && ++seen[f.name] == 2)
        ctx.fn->events.push_back({BatchEvent::Kind::twice, f.name, span, t.str()});
}

Type Checker::expr(const Expr& e, FnCtx& ctx, const Type* expected) {
  Type t = expr_kind(e, ctx, expected);
  if (e.id < typed_.types.size()) typed_.types[e.id] = t;
  return t;
}

Type Checker::expr_kind(const Expr& e, FnCtx& ctx, const Type* expected) {
  switch (e.kind) {
    case ExprKind::name:
      return name_expr(e, ctx);
    case ExprKind::integer: {
      Type t = Type::of(Type::Kind::integer);
      t.static_value = true;
      return t;
    }
    case ExprKind::floating: {
      Type t = Type::of(Type::Kind::floating);
      t.static_value = true;
      return t;
    }
    case ExprKind::string:
      return Type::of(Type::Kind::string);
    case ExprKind::fstring:
      for (const auto& part : e.parts) {
        if (!part.expr) continue;
        const Type t = expr(*part.expr, ctx);
        // A format (`{x:.4f}`) shapes one number.
        if (!part.spec.empty() && !t.is_error() && !t.is_one_number())
          r_.error(Code::E0505, part.expr->span,
                   "the format `" + part.spec + "` shapes a number, not " + t.str(), "not a number")
              .help = "format one number (`{mean(x):.3f}`), or drop the format to print it all";
      }
      return Type::of(Type::Kind::string);
    case ExprKind::boolean: {
      Type t = Type::scalar(ElemKind::boolean);
      t.static_value = true;
      return t;
    }
    case ExprKind::unary:
      return unary_expr(e, ctx);
    case ExprKind::binary:
      return binary_expr(e, ctx);
    case ExprKind::call:
      return call_expr(e, ctx, nullptr, {}, expected);
    case ExprKind::member:
      return member_expr(e, ctx);
    case ExprKind::index:
      return index_expr(e, ctx);
    case ExprKind::list:
      return list_expr(e, ctx);
    case ExprKind::tuple: {
      Type t = Type::of(Type::Kind::tuple);
      for (const auto& item : e.items) t.items.push_back(expr(*item, ctx));
      return t;
    }
    case ExprKind::mut:
      r_.error(Code::E1503, e.span, "`mut` outside a call's arguments", "here").help =
          "`mut` marks an argument: `update(mut m, mut opt, g)`";
      return expr(*e.items[0], ctx);
    case ExprKind::slice:
    case ExprKind::pattern:
      r_.error(Code::E0701, e.span, "a pattern or slice outside the call that takes it", "here")
          .help =
          "patterns belong in rearrange, reduce, repeat and einsum; slices inside `x[t=a:b]`";
      return Type::error();
  }
  return Type::error();
}

Type Checker::name_expr(const Expr& e, FnCtx& ctx) {
  const std::string& n = e.text;
  if (auto it = ctx.vars.find(n); it != ctx.vars.end()) return it->second.type;
  if (auto it = dims_.find(n); it != dims_.end()) {
    Type t = Type::of(Type::Kind::integer);
    t.static_value = it->second.value.has_value();
    return t;
  }
  if (ctx.fn->generics.count(n)) {
    ctx.fn->events.push_back({BatchEvent::Kind::as_number, n, e.span, n});
    return Type::of(Type::Kind::integer);
  }
  if (fns_.count(n)) return Type::of(Type::Kind::function, n);
  if (sinks_.count(n)) return Type::of(Type::Kind::sink, n);
  auto& d = r_.error(Code::E0301, e.span, "unknown name `" + n + "`", "not bound here");
  if (models_.count(n)) {
    d.help = "`" + n + "` is a model: make one with `" + n + "(seed=0)`";
  } else if (records_.count(n)) {
    d.help = "`" + n + "` is a record type; values of it come from a dataset";
  } else if (is_builtin(n)) {
    d.help = "`" + n + "` is a built-in function: call it, `" + n + "(...)`";
  } else {
    // The program's own names first; a built-in only where none is near.
    std::vector<std::string> names;
    for (const auto& [name, var] : ctx.vars) names.push_back(name);
    for (const auto& [name, fn] : fns_) names.push_back(name);
    for (const auto& [name, dim] : dims_) names.push_back(name);
    auto best = support::did_you_mean(n, names);
    if (!best)
      best = support::did_you_mean(
          n, std::vector<std::string>(builtin_names().begin(), builtin_names().end()));
    d.help = !best ? "bind it first (`" + n + " = ...`), or pass it as a parameter"
                   : "did you mean `" + *best + "`?";
  }
  return Type::error();
}

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

Type Checker::member_expr(const Expr& e, FnCtx& ctx) {
  const Type base = expr(*e.items[0], ctx);
  const std::string& field = e.text;
  switch (base.kind) {
    case Type::Kind::error:
      return base;
    case Type::Kind::record:
    case Type::Kind::batch: {
      const RecordInfo& rec = records_.at(base.name);
      const Field* f = rec.field(field);
      if (!f) {
        std::string fields;
        for (const auto& x : rec.fields) fields += (fields.empty() ? "`" : ", `") + x.name + "`";
        r_.error(Code::E1001, e.span, "record `" + base.name + "` has no field `" + field + "`",
                 "unknown field")
            .help = "its fields are " + fields;
        return Type::error();
      }
      if (f->type.is_error() || base.is(Type::Kind::record)) return f->type;
      Type out = f->type;
      out.axes.insert(out.axes.begin(), base.batch_axis);  // struct of arrays: batch.x is [b ...]
      return out;
    }
    case Type::Kind::model: {
      const Member* m = models_.at(base.name).member(field);
      if (!m) {
        std::vector<std::string> members;
        for (const auto& x : models_.at(base.name).members) members.push_back(x.name);
        auto& d = r_.error(Code::E1101, e.span,
                           "model `" + base.name + "` has no parameter `" + field + "`", "unknown");
        d.help = support::nearest_names(field, members, "its members are", members.size());
        return Type::error();
      }
      return m->type;
    }
    case Type::Kind::optimizer:
      if (field == "lr") return Type::of(Type::Kind::floating);
      r_.error(Code::E1303, e.span, "an optimiser has no field `" + field + "`", "unknown").help =
          "an optimiser exposes `lr`";
      return Type::error();
    default:
      r_.error(Code::E0505, e.span, base.str() + " has no fields", "no `." + field + "` here")
          .help = "fields belong to records, batches, models and optimisers";
      return Type::error();
  }
}

Type Checker::index_expr(const Expr& e, FnCtx& ctx) {
  const Type base = expr(*e.items[0], ctx);
  if (base.is_error()) return base;
  if (!base.is_tensor()) {
    r_.error(Code::E0801, e.span, "can't index " + base.str(), "not a tensor").help =
        "index a tensor by axis name: `x[t=0]`";
    return Type::error();
  }
  Type out = base;
  // x[t=0], x[t=1:]
  for (const auto& kw : e.kwargs) {
    const Axis want = dims_.count(kw.name) ? Axis::dim(kw.name) : Axis::generic(kw.name);
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < out.axes.size(); ++i)
      if (out.axes[i] == want) at.push_back(i);
    if (at.size() != 1) {
      r_.error(at.empty() ? Code::E0801 : Code::E0704, kw.name_span,
               at.empty() ? "the value has no axis `" + kw.name + "`"
                          : "the value has axis `" + kw.name + "` twice",
               at.empty() ? "it is " + base.str() : "ambiguous")
          .help = at.empty() ? "index one of its axes, by name"
                             : "name the axis by position in a reduction, or rearrange first";
      return Type::error();
    }
    const std::size_t k = at[0];
    typed_.axes[kw.value.get()] = {k};
    for (const auto& f : want.factors)
      if (f.kind == Factor::Kind::generic)
        no_lowering(ctx, want, kw.name_span,
                    kw.value->kind == ExprKind::slice ? "slicing" : "indexing");
    if (kw.value->kind == ExprKind::slice) {
      std::optional<std::int64_t> bounds[2];
      for (int b = 0; b < 2; ++b) {
        const Expr* v = kw.value->items[b].get();
        if (!v) continue;
        const Type t = expr(*v, ctx);
        if (!t.is(Type::Kind::integer) && !t.is_error()) {
          r_.error(Code::E0806, v->span, "a slice's bound must be an integer, not " + t.str(),
                   "not an integer")
              .help = "write `x[t=1:]` or `x[t=0:n]`";
          return Type::error();
        }
        if (v->kind == ExprKind::integer) bounds[b] = v->int_value;
      }
      const auto size = static_size(out.axes[k]);
      if (size && (!kw.value->items[0] || bounds[0]) && (!kw.value->items[1] || bounds[1])) {
        std::int64_t lo = bounds[0].value_or(0), hi = bounds[1].value_or(*size);
        if (lo < 0) lo += *size;
        if (hi < 0) hi += *size;
        if (lo < 0 || hi > *size || lo > hi) {
          r_.error(Code::E0805, kw.value->span,
                   "the slice leaves " + kw.name + "'s " + std::to_string(*size) + " entries",
                   "out of range")
              .help = "bounds lie within 0.." + std::to_string(*size);
          return Type::error();
        }
        out.axes[k] = Axis::literal(hi - lo);
      } else {
        out.axes[k] = Axis::opaque(kw.name + "'");
      }
      continue;
    }
    const Type t = expr(*kw.value, ctx);
    if (!t.is(Type::Kind::integer) && !t.is_error()) {
      r_.error(Code::E0806, kw.value->span, "an index must be an integer, not " + t.str(),
               "not an integer")
          .help = "index with an integer (`x[t=0]`); gather with an `Index` tensor (`table[ids]`)";
      return Type::error();
    }
    if (kw.value->kind == ExprKind::integer) {
      const auto size = static_size(out.axes[k]);
      const std::int64_t i = kw.value->int_value;
      if (size && (i >= *size || i < -*size)) {
        r_.error(Code::E0805, kw.value->span,
                 "index " + std::to_string(i) + " is past " + kw.name + "'s " +
                     std::to_string(*size) + " entries",
                 "out of range")
            .help = "indexes run from 0 to " + std::to_string(*size - 1) +
                    " (negative ones count from the end)";
        return Type::error();
      }
    }
    out.axes.erase(out.axes.begin() + static_cast<std::ptrdiff_t>(k));
  }
  // table[ids]: a gather along the first axis.
  if (e.items.size() > 2) {
    r_.error(Code::E0804, e.items[2]->span, "a gather takes one index tensor", "extra").help =
        "gather along the first axis: `table[ids]`";
    return Type::error();
  }
  if (e.items.size() == 2) {
    const Expr& ids_expr = *e.items[1];
    if (ids_expr.kind == ExprKind::slice || ids_expr.kind == ExprKind::integer) {
      r_.error(Code::E0804, ids_expr.span, "axes are indexed by name", "a position").help =
          out.axes.empty() ? "index by axis name: `x[t=0]`"
                           : "index by axis name: `x[" + out.axes.front().str() + "=" +
                                 std::string(r_.map().slice(ids_expr.span)) + "]`";
      return Type::error();
    }
    const Type ids = expr(ids_expr, ctx);
    if (ids.is_error()) return ids;
    if (!ids.is_tensor() || ids.elem.kind != ElemKind::index) {
      r_.error(Code::E0802, ids_expr.span, "a gather needs Index values, not " + ids.str(),
               "not an Index tensor")
          .help = "make indices with `Index[V](x)`, `argmax`, or a record field typed `Index[V]`";
      return Type::error();
    }
    if (out.axes.empty() || !ids.elem.index_of ||
        !axes_match(*ids.elem.index_of, out.axes.front())) {
      r_.error(Code::E0803, e.span,
               "the indices are " + ids.elem.str() + " but the table's first axis is " +
                   (out.axes.empty() ? std::string("missing") : out.axes.front().str()),
               "indices into another dim")
          .help = "gather from a table whose first axis is the indices' dim";
      return Type::error();
    }
    std::vector<Axis> axes = ids.axes;
    axes.insert(axes.end(), out.axes.begin() + 1, out.axes.end());
    out.axes = std::move(axes);
    note_axes(out, e.span, ctx);
  }
  return out;
}

Type Checker::list_expr(const Expr& e, FnCtx& ctx) {
  if (e.text == "shape") {
    r_.error(Code::E0505, e.span, "a shape isn't a value here", "a shape").help =
        "shapes go to constructors (`zeros([D C])`) and `over=`; a tensor literal has commas: "
        "`[1.0, 2.0]`";
    return Type::error();
  }
  if (e.items.empty()) {
    r_.error(Code::E0508, e.span, "an empty tensor literal", "no elements").help =
        "use `zeros([0])`-style constructors for shapes; a literal needs at least one element";
    return Type::error();
  }
  std::optional<std::vector<Axis>> inner;
  Elem elem{ElemKind::i32, {}, false};
  for (const auto& item : e.items) {
    Type t = expr(*item, ctx);
    if (t.is_error()) return t;
    if (item->kind == ExprKind::list) {
      // t already has the inner axes
    } else {
      t = as_tensor(t);
      if (!t.is_tensor() || !t.axes.empty()) {
        r_.error(Code::E0508, item->span,
                 "a tensor literal holds numbers or nested lists, not " + t.str(), "here")
            .help = "write numbers: `[[1.0, 2.0], [3.0, 4.0]]`; build from tensors with `stack`";
        return Type::error();
      }
    }
    if (t.elem.is_float())
      elem = Elem{ElemKind::f32, {}, false};
    else if (t.elem.kind == ElemKind::boolean)
      elem = Elem{ElemKind::boolean, {}, false};
    if (inner && *inner != t.axes) {
      r_.error(Code::E0508, item->span,
               "a ragged tensor literal: this row is " + axes_str(t.axes) + ", the first " +
                   axes_str(*inner),
               "different length")
          .help = "every row of a tensor literal has the same shape";
      return Type::error();
    }
    inner = t.axes;
  }
  std::vector<Axis> axes = {Axis::literal(static_cast<std::int64_t>(e.items.size()))};
  axes.insert(axes.end(), inner->begin(), inner->end());
  return Type::tensor(std::move(axes), elem);
}

Type Checker::user_call(const Expr& e, FnInfo& callee, std::vector<Type> args,
                        std::vector<Span> spans, FnCtx& ctx, bool check_mut) {
  const auto& item = *callee.item;
  if (!e.kwargs.empty()) {
    r_.error(Code::E0902, e.kwargs[0].name_span, "`" + item.name + "` takes no keyword arguments",
             "keyword")
        .help = "pass its arguments by position, in the order of its parameters";
  }
  if (args.size() != item.params.size()) {
    auto& d = r_.error(Code::E0901, e.span,
                       "`" + item.name + "` takes " + std::to_string(item.params.size()) +
                           " argument" + (item.params.size() == 1 ? "" : "s") + ", given " +
                           std::to_string(args.size()),
                       "wrong count");
    r_.secondary(d, item.span, "declared here");
    return callee.has_ret ? Type::error() : Type::none();
  }
  CallSite site;
  site.callee = item.name;
  site.expr = &e;
  site.span = e.span;
  site.arg_spans = spans;
  bool ok = true;
  for (std::size_t i = 0; i < args.size() && ok; ++i) {
    const Type& want = callee.params[i];
    Type got = args[i];
    std::set<std::string> names;
    generic_names(got, names);
    site.arg_axes.push_back(names);
    if (want.is_error() || got.is_error()) continue;
    const auto mismatch = [&](const std::string& why) {
      auto& d = r_.error(Code::E0606, spans[i],
                         "argument `" + item.params[i].name + "` of `" + item.name + "` is " +
                             want.str() + ", given " + got.str(),
                         why);
      r_.secondary(d, item.params[i].span, "declared here");
      ok = false;
    };
    if (want.is(Type::Kind::any_tensor)) {
      if (!as_tensor(got).is_tensor()) mismatch("not a tensor");
      for (const auto& n : names)
        ctx.fn->events.push_back({BatchEvent::Kind::to_any, n, spans[i], item.name});
      continue;
    }
    if (want.is_tensor()) {
      got = as_tensor(got);
      if (!got.is_tensor()) {
        mismatch("not a tensor");
        continue;
      }
      if (got.axes.size() != want.axes.size()) {
        mismatch(std::to_string(got.axes.size()) + " axes, not " +
                 std::to_string(want.axes.size()));
        continue;
      }
    } else if (want.kind != got.kind && !assignable(want, got)) {
      mismatch("this is " + got.str());
      continue;
    }
    // Bind the callee's generic axes to the caller's axes.
    std::vector<std::pair<const Axis*, const Axis*>> pairs;
    for (std::size_t k = 0; k < want.axes.size(); ++k)
      pairs.push_back({&want.axes[k], &got.axes[k]});
    if (want.is(Type::Kind::batch)) {
      if (got.name != want.name) {
        mismatch("a batch of " + got.name);
        continue;
      }
      pairs.push_back({&want.batch_axis, &got.batch_axis});
    }
    if (want.elem.index_of && got.elem.index_of)
      pairs.push_back({&*want.elem.index_of, &*got.elem.index_of});
    for (const auto& [w, g] : pairs) {
      if (w->single() && w->factors[0].kind == Factor::Kind::generic) {
        const std::string& name = w->factors[0].name;
        auto [it, fresh] = site.bindings.emplace(name, *g);
        if (!fresh && !axes_match(it->second, *g)) {
          auto& d = r_.error(Code::E0607, spans[i],
                             "`" + name + "` of `" + item.name + "` is " + it->second.str() +
                                 " here and " + g->str() + " there",
                             "`" + name + "` = " + g->str());
          r_.secondary(d, item.span, "`" + name + "` appears more than once in its parameters");
          d.help = "a generic axis takes one size per call; the arguments must agree on it";
          ok = false;
          break;
        }
        continue;
      }
      const Axis expected = substitute(*w, site.bindings);
      bool bound = true;
      for (const auto& f : expected.factors)
        if (f.kind == Factor::Kind::generic && callee.generics.count(f.name) &&
            !site.bindings.count(f.name))
          bound = false;
      if (!bound && expected.factors.size() == g->factors.size()) {
        for (std::size_t k = 0; k < expected.factors.size(); ++k)
          if (expected.factors[k].kind == Factor::Kind::generic &&
              !site.bindings.count(expected.factors[k].name))
            site.bindings.emplace(expected.factors[k].name, Axis{{g->factors[k]}});
        continue;
      }
      if (!axes_match(expected, *g)) {
        mismatch("has " + g->str() + " where " + expected.str() + " is expected");
        break;
      }
    }
    if (!ok) break;
    if (want.is_tensor() && !got.elem.weak && !(want.elem.kind == got.elem.kind) &&
        !(want.elem.kind == ElemKind::index && got.elem.kind == ElemKind::index))
      mismatch("elements are " + got.elem.str());
  }
  // mut: the parameter and the argument say it alike.
  for (std::size_t i = 0; check_mut && i < e.items.size() - 1 && i < item.params.size(); ++i) {
    const Expr& arg = *e.items[i + 1];
    const bool passed_mut = arg.kind == ExprKind::mut;
    if (passed_mut != item.params[i].is_mut) {
      auto& d = r_.error(Code::E1503, arg.span,
                         passed_mut ? "`mut` given for `" + item.params[i].name + "`, which `" +
                                          item.name + "` doesn't change"
                                    : "`" + item.name + "` changes `" + item.params[i].name +
                                          "`: pass it with `mut`",
                         passed_mut ? "not a `mut` parameter" : "needs `mut`");
      r_.secondary(d, item.params[i].span, "declared here");
      d.help =
          passed_mut ? "drop `mut`" : "write `mut " + std::string(r_.map().slice(arg.span)) + "`";
    } else if (passed_mut) {
      const Expr& inner = *arg.items[0];
      if (inner.kind == ExprKind::name) {
        const auto it = ctx.vars.find(inner.text);
        if (it != ctx.vars.end() && it->second.is_param && !it->second.is_mut)
          r_.error(Code::E1504, inner.span,
                   "`" + inner.text + "` is passed as `mut`, but the parameter isn't `mut`",
                   "not `mut` here")
              .help = "declare it `mut " + inner.text + "` in this function too";
      }
    }
  }
  typed_.bindings[&e] = site.bindings;
  ctx.fn->calls.push_back(std::move(site));
  if (!ok || !callee.has_ret) return callee.has_ret ? Type::error() : Type::none();
  Type ret = substitute(callee.ret, ctx.fn->calls.back().bindings);
  note_axes(ret, e.span, ctx);
  return ret;
}

}  // namespace ss::check
