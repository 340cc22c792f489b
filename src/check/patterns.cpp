// einops patterns: rearrange, reduce and repeat take one tensor and a pattern
// `in -> out`; einsum takes n tensors, n input groups and the output's.
// Pattern names are local and bound by position.
#include <algorithm>

#include "check/checker_impl.hpp"
#include "types/size_arith.hpp"

namespace ss::check {
namespace {

struct Binding {
  Axis axis;
  Span span;
};

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

}  // namespace

bool Checker::split_parts_size(const syntax::PatternAtom& atom,
                               const std::vector<std::optional<Axis>>& parts,
                               std::optional<std::int64_t>& size) {
  size = 1;
  for (const auto& part : parts) {
    if (!part) continue;
    const auto s = static_size(*part);
    if (!s) {
      size = std::nullopt;
      return true;
    }
    size = types::mul_sizes(*size, *s);
    if (!size) {
      report_overflow("(" + join(atom.names) + ")", "the product of the sizes given for its parts",
                      atom.span);
      return false;
    }
  }
  return true;
}

bool Checker::split_fits(const Axis& axis, const syntax::PatternAtom& atom,
                         const std::vector<std::optional<Axis>>& parts) {
  std::optional<std::int64_t> given;
  if (!split_parts_size(atom, parts, given)) return false;
  const auto total = static_size(axis);
  if (!given || !total || *given == *total) return true;
  const std::string what = atom.group ? "the sizes given for `(" + join(atom.names) + ")` make "
                                      : "`" + atom.names[0] + "` is given size ";
  r_.error(Code::E0708, atom.span,
           what + std::to_string(*given) + "; the axis is " + axis.str() +
               (axis.is_literal(*total) ? "" : " = " + std::to_string(*total)),
           "doesn't match")
      .help = "the sizes given for an axis, or a split's parts, must multiply to its size";
  return false;
}

Type Checker::pattern_call(const std::string& name, const Expr& e, std::vector<Type>& args,
                           std::vector<Span>& spans, FnCtx& ctx) {
  const Expr* pattern = nullptr;
  for (const auto& item : e.items)
    if (item->kind == ExprKind::pattern) pattern = item.get();
  if (!pattern || !pattern->output) {
    r_.error(Code::E0701, e.span, "`" + name + "` needs a pattern `input -> output`", "no pattern")
        .help = name == "einsum" ? "write `einsum(x, w, b d, d c -> b c)`"
                                 : "write `" + name + "(x, b (h w) -> b h w, h=2)`";
    return Type::error();
  }
  const bool einsum = name == "einsum";
  const std::size_t tensors = einsum ? pattern->groups.size() : 1;
  if (args.size() < tensors) return Type::error();
  std::vector<Type> xs;
  for (std::size_t i = 0; i < tensors; ++i) {
    Type x = as_tensor(args[i]);
    if (!x.is_tensor()) {
      r_.error(Code::E0505, spans[i], "`" + name + "` needs a tensor, not " + args[i].str(),
               "not a tensor");
      return Type::error();
    }
    xs.push_back(std::move(x));
  }

  // Sizes given as keywords: h=2, h=H.
  std::map<std::string, std::pair<Axis, Span>> sizes;
  for (const auto& kw : e.kwargs) {
    auto axis = axis_from_name(*kw.value, ctx);
    if (!axis) return Type::error();
    sizes.emplace(kw.name, std::make_pair(*axis, kw.name_span));
  }

  // Bind every input name to an axis.
  std::map<std::string, Binding> bound;
  const auto bind_name = [&](const std::string& n, const Axis& axis, Span span) {
    auto [it, fresh] = bound.emplace(n, Binding{axis, span});
    if (fresh) return true;
    if (einsum && axes_match(it->second.axis, axis)) return true;
    if (!einsum) {
      r_.error(Code::E0709, span, "`" + n + "` appears twice in the input pattern", "again").help =
          "name each axis once per side";
      return false;
    }
    auto& d = r_.error(Code::E0712, span,
                       "`" + n + "` is " + it->second.axis.str() + " in one input and " +
                           axis.str() + " in another",
                       "`" + n + "` = " + axis.str());
    r_.secondary(d, it->second.span, "`" + n + "` = " + it->second.axis.str());
    d.help = "a name shared by einsum's inputs is one axis: the same dim in each";
    return false;
  };
  for (std::size_t t = 0; t < tensors; ++t) {
    const auto& group = pattern->groups[t];
    const Type& x = xs[t];
    if (group.atoms.size() != x.axes.size()) {
      r_.error(Code::E0706, group.span,
               "the pattern names " + std::to_string(group.atoms.size()) + " axes; the value " +
                   x.str() + " has " + std::to_string(x.axes.size()),
               "for " + x.str())
          .help = "give one name (or parenthesised group) per axis, in order";
      return Type::error();
    }
    for (std::size_t k = 0; k < group.atoms.size(); ++k) {
      const auto& atom = group.atoms[k];
      const Axis& axis = x.axes[k];
      if (atom.unit) {
        if (!axis.is_literal(1) && static_size(axis) != std::optional<std::int64_t>(1)) {
          r_.error(Code::E0706, atom.span,
                   "`1` in the pattern stands for an axis of size 1, here " + axis.str(),
                   "not size 1")
              .help = "name the axis instead";
          return Type::error();
        }
        continue;
      }
      if (!atom.group) {
        const auto given = sizes.find(atom.names[0]);
        if (given != sizes.end() && !split_fits(axis, atom, {given->second.first}))
          return Type::error();
        if (!bind_name(atom.names[0], axis, atom.span)) return Type::error();
        continue;
      }
      if (einsum) {
        r_.error(Code::E0701, atom.span, "einsum's patterns don't group axes", "a group").help =
            "rearrange first, then contract";
        return Type::error();
      }
      // (h w): split the axis.
      for (const auto& f : axis.factors)
        if (f.kind == Factor::Kind::generic && atom.names.size() > 1)
          ctx.fn->events.push_back(
              {BatchEvent::Kind::grouped, f.name, atom.span, "(" + axis.str() + ") split"});
      std::vector<std::optional<Axis>> parts(atom.names.size());
      std::size_t unknown = 0;
      for (std::size_t n = 0; n < atom.names.size(); ++n) {
        if (auto it = sizes.find(atom.names[n]); it != sizes.end())
          parts[n] = it->second.first;
        else
          ++unknown;
      }
      if (unknown == atom.names.size() && axis.factors.size() == atom.names.size()) {
        for (std::size_t n = 0; n < atom.names.size(); ++n) parts[n] = Axis{{axis.factors[n]}};
        unknown = 0;
      } else if (unknown == 0 && !split_fits(axis, atom, parts)) {
        return Type::error();
      }
      if (unknown > 1) {
        r_.error(Code::E0708, atom.span,
                 "can't tell how " + axis.str() + " splits into " +
                     std::to_string(atom.names.size()) + " axes",
                 "sizes unknown")
            .help =
            "give all but one size as keywords: `" + name + "(x, ..., " + atom.names[0] + "=2)`";
        return Type::error();
      }
      if (unknown == 1) {
        std::size_t missing = 0;
        Axis known;
        for (std::size_t n = 0; n < parts.size(); ++n) {
          if (!parts[n]) {
            missing = n;
            continue;
          }
          known.factors.insert(known.factors.end(), parts[n]->factors.begin(),
                               parts[n]->factors.end());
        }
        std::optional<std::int64_t> given;
        if (!split_parts_size(atom, parts, given)) return Type::error();
        const bool static_known = given.has_value();
        const std::int64_t known_size = given.value_or(1);
        const auto total = static_size(axis);
        if (total && static_known) {
          if (*total % known_size != 0) {
            r_.error(Code::E0708, atom.span,
                     axis.str() + " (" + std::to_string(*total) + ") doesn't split into parts of " +
                         std::to_string(known_size),
                     "doesn't divide")
                .help = "the given sizes must divide the axis";
            return Type::error();
          }
          parts[missing] = Axis::literal(*total / known_size);
        } else {
          // Remove the known factors from the axis when they appear in it.
          Axis rest = axis;
          bool found = true;
          for (const auto& f : known.factors) {
            auto at = std::find(rest.factors.begin(), rest.factors.end(), f);
            if (at == rest.factors.end()) {
              found = false;
              break;
            }
            rest.factors.erase(at);
          }
          parts[missing] =
              found && !rest.factors.empty() ? rest : Axis::opaque(atom.names[missing]);
        }
      }
      for (std::size_t n = 0; n < atom.names.size(); ++n)
        if (!bind_name(atom.names[n], *parts[n], atom.name_spans[n])) return Type::error();
    }
  }
  for (const auto& entry : sizes) {
    const std::string& n = entry.first;
    const auto& size = entry.second;
    const bool in_output = std::any_of(
        pattern->output->atoms.begin(), pattern->output->atoms.end(), [&](const auto& a) {
          return std::find(a.names.begin(), a.names.end(), n) != a.names.end();
        });
    if (!bound.count(n) && !(name == "repeat" && in_output)) {
      r_.error(Code::E0707, size.second, "`" + n + "=` names no axis of the pattern",
               "not in the pattern")
          .help = "sizes are for names in the pattern";
      return Type::error();
    }
  }

  // The output.
  std::vector<Axis> out;
  std::set<std::string> used;
  for (const auto& atom : pattern->output->atoms) {
    if (atom.unit) {
      out.push_back(Axis::literal(1));
      continue;
    }
    Axis axis;
    for (std::size_t n = 0; n < atom.names.size(); ++n) {
      const std::string& nm = atom.names[n];
      if (!used.insert(nm).second) {
        r_.error(Code::E0709, atom.name_spans[n], "`" + nm + "` appears twice in the output",
                 "again")
            .help = "name each axis once per side";
        return Type::error();
      }
      Axis part;
      if (auto it = bound.find(nm); it != bound.end()) {
        part = it->second.axis;
      } else if (auto s = sizes.find(nm); name == "repeat" && s != sizes.end()) {
        part = s->second.first;
      } else {
        auto& d = r_.error(name == "repeat" ? Code::E0713 : Code::E0707, atom.name_spans[n],
                           name == "repeat" ? "`" + nm + "` is a new axis without a size"
                                            : "`" + nm + "` is in the output but not the input",
                           "unknown here");
        d.help = name == "repeat" ? "give its size: `" + nm + "=3`"
                                  : "the output may only use names from the input";
        return Type::error();
      }
      axis.factors.insert(axis.factors.end(), part.factors.begin(), part.factors.end());
    }
    if (atom.names.size() > 1)
      for (const auto& f : axis.factors)
        if (f.kind == Factor::Kind::generic)
          ctx.fn->events.push_back(
              {BatchEvent::Kind::grouped, f.name, atom.span, "(" + axis.str() + ")"});
    // A group's sizes must multiply within 64 bits; a product of literals
    // reads as one literal.
    if (axis.factors.size() > 1 && sized_factors(axis)) {
      const auto n = static_size(axis);
      if (!n) {
        report_overflow(axis.str(), "the product of the grouped axes' sizes", atom.span);
        return Type::error();
      }
      if (std::all_of(axis.factors.begin(), axis.factors.end(),
                      [](const Factor& f) { return f.kind == Factor::Kind::literal; }))
        axis = Axis::literal(*n);
    }
    out.push_back(std::move(axis));
  }
  // Names of the input missing from the output.
  std::vector<std::string> dropped;
  for (const auto& [n, b] : bound)
    if (!used.count(n)) dropped.push_back(n);
  Elem elem = xs[0].elem;
  if (name == "rearrange" || name == "repeat") {
    if (!dropped.empty()) {
      r_.error(Code::E0711, pattern->output->span,
               "`" + dropped[0] + "` is in the input but not the output",
               "`" + dropped[0] + "` is dropped")
          .help = name == "rearrange"
                      ? "rearrange keeps every axis; reduce drops axes: `reduce(x, ..., sum)`"
                      : "repeat keeps every input axis";
      return Type::error();
    }
  } else if (name == "reduce") {
    const Expr* op = nullptr;
    bool after = false;
    for (const auto& item : e.items) {
      if (after) {
        op = item.get();
        break;
      }
      if (item.get() == pattern) after = true;
    }
    static const std::set<std::string> kOps = {"sum", "mean", "max", "min"};
    if (!op || op->kind != ExprKind::name || !kOps.count(op->text)) {
      r_.error(Code::E0710, op ? op->span : e.span,
               "`reduce` needs its operation after the pattern", "sum, mean, max or min")
          .help = "write `reduce(x, b n d -> b d, sum)`";
      return Type::error();
    }
    for (const auto& n : dropped)
      if (op->text != "sum")
        no_lowering(ctx, bound.at(n).axis, pattern->span, "reduce with " + op->text);
    if (op->text == "mean" && !elem.is_float()) elem = Elem{ElemKind::f32, {}, false};
  } else {
    for (std::size_t i = 1; i < xs.size(); ++i) {
      auto unified = unify_elems(elem, xs[i].elem, e.span, "einsum");
      if (!unified) return Type::error();
      elem = *unified;
    }
  }
  // The plan lowering follows.
  PatternPlan plan;
  for (std::size_t t = 0; t < tensors; ++t) {
    auto& atoms = plan.inputs.emplace_back();
    for (const auto& atom : pattern->groups[t].atoms) atoms.push_back(atom.names);
  }
  for (const auto& atom : pattern->output->atoms) plan.output.push_back(atom.names);
  // A keyword's size wins over the axis a name is bound to: where the two
  // are known only in the call, the call checks that they agree (E0708).
  for (const auto& [n, b] : bound) plan.sizes[n] = b.axis;
  for (const auto& [n, size] : sizes) plan.sizes[n] = size.first;
  if (name == "reduce")
    for (std::size_t k = 0; k + 1 < e.items.size(); ++k)
      if (e.items[k].get() == pattern) plan.op = e.items[k + 1]->text;
  typed_.patterns[&e] = std::move(plan);

  Type result = Type::tensor(std::move(out), elem);
  note_axes(result, e.span, ctx);
  return result;
}

}  // namespace ss::check
