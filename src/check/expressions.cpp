// Expressions: names, members, indexing, tensor literals and calls of the
// program's own functions (operators are operators.cpp's).
#include <algorithm>

#include "check/checker_impl.hpp"
#include "support/nearest.hpp"
#include "types/size_arith.hpp"

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
  std::optional<std::int64_t> n = 1;
  for (const auto& f : a.factors) {
    if (f.kind == Factor::Kind::literal) {
      n = types::mul_sizes(*n, f.value);
    } else if (f.kind == Factor::Kind::dim) {
      const auto it = dims_.find(f.name);
      if (it == dims_.end() || !it->second.value) return std::nullopt;
      n = types::mul_sizes(*n, *it->second.value);
    } else {
      return std::nullopt;
    }
    if (!n) return std::nullopt;
  }
  return n;
}

bool Checker::sized_factors(const Axis& a) const {
  return std::all_of(a.factors.begin(), a.factors.end(), [&](const Factor& f) {
    if (f.kind == Factor::Kind::literal) return true;
    const auto it = dims_.find(f.name);
    return f.kind == Factor::Kind::dim && it != dims_.end() && it->second.value.has_value();
  });
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
  if (const ModelInfo* stack = stack_of(base)) return stack_index(e, *stack, ctx);
  if (!base.is_tensor()) {
    r_.error(Code::E0801, e.span, "can't index " + base.str(), "not a tensor").help =
        "index a tensor by axis name: `x[t=0]`";
    return Type::error();
  }
  Type out = base;
  // x[t=0], x[t=1:]
  for (const auto& kw : e.kwargs) {
    const Axis want = dim_axis(kw.name).value_or(Axis::generic(kw.name));
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
    } else if ((want.is(Type::Kind::model) || want.is(Type::Kind::optimizer)) &&
               (types::model_base(want.name) != types::model_base(got.name) ||
                want.opt_kind != got.opt_kind || want.axes.size() != got.axes.size())) {
      mismatch("this is " + got.str());  // a generic model's dims are paired below
      continue;
    } else if ((want.is(Type::Kind::record) || want.is(Type::Kind::dataset)) &&
               want.name != got.name) {
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
