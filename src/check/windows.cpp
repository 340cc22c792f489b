// conv, max_pool and avg_pool: sliding windows over named axes, channels
// last, PyTorch's arithmetic. An axis whose size the window keeps stays the
// same axis; one whose size changes is named by `out=`, checked against
// floor((n + 2p - d(k-1) - 1) / s) + 1 (types/window_size.hpp).
#include <algorithm>

#include "check/checker_impl.hpp"
#include "types/size_arith.hpp"

namespace ss::check {

namespace {

std::string join(const std::vector<std::int64_t>& v) {
  std::string s;
  for (const auto x : v) s += (s.empty() ? "" : " ") + std::to_string(x);
  return v.size() == 1 ? s : "[" + s + "]";
}

}  // namespace

// A per-axis setting: a count or a list of one per windowed axis.
std::optional<std::vector<std::int64_t>> Checker::window_setting(const Expr& e, const char* name,
                                                                 std::size_t n,
                                                                 std::vector<std::int64_t> fallback,
                                                                 std::int64_t least) {
  const auto* kw = kwarg(e, name);
  if (!kw) return fallback;
  const auto items = listed(*kw->value);
  std::vector<std::int64_t> out;
  for (const Expr* item : items) {
    if (item->kind != ExprKind::integer || item->int_value < least) {
      r_.error(Code::E0721, item->span,
               std::string("`") + name + "=` takes " + (least > 0 ? "positive" : "non-negative") +
                   " integers",
               "not " + std::string(least > 0 ? "a positive" : "a non-negative") + " integer")
          .help =
          std::string("write `") + name + "=2`, or one per `over=` axis: `" + name + "=[2 1]`";
      return std::nullopt;
    }
    out.push_back(item->int_value);
  }
  if (out.size() == 1) out.assign(n, out[0]);
  if (out.size() != n) {
    r_.error(Code::E0721, kw->value->span,
             std::string("`") + name + "=` gives " + std::to_string(items.size()) + " values for " +
                 std::to_string(n) + " windowed axes",
             "one per `over=` axis")
        .help = "give one number for every axis, or one for each `over=` axis in order";
    return std::nullopt;
  }
  return out;
}

Type Checker::window_call(const std::string& name, const Expr& e, std::vector<Type>& args,
                          std::vector<Span>& spans, FnCtx& ctx) {
  const bool conv = name == "conv";
  WindowPlan plan;
  plan.kind = conv                 ? WindowPlan::Kind::conv
              : name == "max_pool" ? WindowPlan::Kind::max_pool
                                   : WindowPlan::Kind::avg_pool;
  if (conv)
    check_kwargs(e, {"over", "stride", "padding", "dilation", "groups", "out"}, name);
  else
    check_kwargs(e, {"over", "window", "stride", "padding", "out"}, name);
  if (!arg_count(name, e, args.size(), conv ? 2 : 1, conv ? 2 : 1)) return Type::error();
  std::vector<Type> ts;
  for (std::size_t i = 0; i < args.size(); ++i) {
    Type t = as_tensor(args[i]);
    if (!t.is_tensor() || !t.elem.is_float()) {
      r_.error(Code::E0505, spans[i], "`" + name + "` needs a float tensor, not " + args[i].str(),
               "this is " + args[i].str())
          .help = i == 0 ? "pass the image: `[b H W C]`, channels last"
                         : "pass the kernel: `[Kh Kw Ci Co]`";
      return Type::error();
    }
    ts.push_back(std::move(t));
  }
  const Type& x = ts[0];
  const auto* over = kwarg(e, "over");
  if (!over) {
    r_.error(Code::E0903, e.span, "`" + name + "` needs `over=`, the axes it slides along",
             "no `over=`")
        .help =
        "name the spatial axes: `" + name + "(x, over=[H W], ...)`, or by position: `over=[1 2]`";
    return Type::error();
  }
  auto at = over_axes(over->value.get(), x, e.span, ctx, false);
  if (!at) return Type::error();
  plan.over = *at;
  const std::size_t n = plan.over.size(), rank = x.axes.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && plan.over[i] <= plan.over[i - 1]) {
      r_.error(Code::E0721, over->value->span, "`over=` names its axes out of order", "reorder")
          .help = "name them in the order they stand in " + x.str();
      return Type::error();
    }
    if (conv && plan.over[i] + 1 == rank) {
      r_.error(Code::E0720, over->value->span,
               "`conv` slides over " + x.axes[plan.over[i]].str() + ", the image's last axis",
               "the channels")
          .help = "the image is channels last, `[b H W C]`: slide over the axes before C";
      return Type::error();
    }
  }
  // The window: a kernel's leading axes, or pooling's `window=`.
  Type out = x;
  if (conv) {
    const Type& k = ts[1];
    if (k.axes.size() != n + 2) {
      r_.error(Code::E0720, spans[1],
               "a kernel for " + std::to_string(n) + " windowed axes has " + std::to_string(n + 2) +
                   " axes, not " + std::to_string(k.axes.size()),
               "this is " + k.str())
          .help =
          "write it `[Kh Kw Ci Co]`: one size per `over=` axis, then the input and "
          "output channels";
      return Type::error();
    }
    for (std::size_t i = 0; i < n; ++i) plan.size.push_back(k.axes[i]);
    auto g = window_setting(e, "groups", 1, {1}, 1);
    if (!g) return Type::error();
    const std::int64_t groups = plan.groups = (*g)[0];
    const Axis& c = x.axes[rank - 1];
    const Axis& ci = k.axes[n];
    const Axis& co = k.axes[n + 1];
    if (groups == 1) {
      if (!axes_match(ci, c)) {
        r_.error(Code::E0720, spans[1],
                 "the kernel takes " + ci.str() + " input channels; the image has " + c.str(),
                 "kernel " + k.str())
            .help = "the kernel's second-to-last axis is the image's channels: `[" +
                    plan.size[0].str() + (n > 1 ? " ..." : "") + " " + c.str() + " " + co.str() +
                    "]`";
        return Type::error();
      }
    } else {
      const auto sc = static_size(c), sci = static_size(ci), sco = static_size(co);
      if (!sc || !sci || !sco || *sc % groups != 0 || *sco % groups != 0 ||
          types::mul_sizes(*sci, groups) != sc) {
        r_.error(Code::E0720, spans[1],
                 "with groups=" + std::to_string(groups) + ", the kernel " + k.str() +
                     " doesn't fit an image of " + c.str() + " channels",
                 "kernel " + k.str())
            .help = "the channels " + c.str() + " and the kernel's output channels " + co.str() +
                    " divide by the groups, and the kernel takes " + c.str() +
                    "/groups input "
                    "channels (depthwise: groups=" +
                    c.str() + ", a kernel `[.. 1 " + c.str() + "]`)";
        return Type::error();
      }
    }
    out.axes[rank - 1] = co;
  } else {
    const auto* window = kwarg(e, "window");
    if (!window) {
      r_.error(Code::E0903, e.span, "`" + name + "` needs `window=`, the window's size",
               "no `window=`")
          .help = "write `" + name + "(x, over=[H W], window=2)`";
      return Type::error();
    }
    auto w = window_setting(e, "window", n, {}, 1);
    if (!w) return Type::error();
    for (const auto s : *w) plan.size.push_back(Axis::literal(s));
    auto s = window_setting(e, "stride", n, *w, 1);
    if (!s) return Type::error();
    plan.stride = *s;
  }
  if (conv) {
    auto s = window_setting(e, "stride", n, std::vector<std::int64_t>(n, 1), 1);
    auto d = window_setting(e, "dilation", n, std::vector<std::int64_t>(n, 1), 1);
    if (!s || !d) return Type::error();
    plan.stride = *s;
    plan.dilation = *d;
  } else {
    plan.dilation.assign(n, 1);
  }
  const auto* padding = kwarg(e, "padding");
  if (padding && padding->value->kind == ExprKind::name && padding->value->text == "same") {
    if (!conv || std::any_of(plan.stride.begin(), plan.stride.end(),
                             [](std::int64_t s) { return s != 1; })) {
      r_.error(Code::E0721, padding->value->span,
               conv ? "`padding=same` with a stride of " + join(plan.stride)
                    : "`" + name + "` has no `padding=same`",
               conv ? "needs stride 1" : "give a number")
          .help = conv ? "`same` keeps the size, which only stride 1 does; give the padding as a "
                         "number and the output's size with `out=`"
                       : "pad with a number: `padding=1`";
      return Type::error();
    }
    plan.same = true;
    plan.before.assign(n, 0);
    plan.after.assign(n, 0);
  } else {
    auto p = window_setting(e, "padding", n, std::vector<std::int64_t>(n, 0), 0);
    if (!p) return Type::error();
    plan.before = plan.after = *p;
    if (!conv)
      for (std::size_t i = 0; i < n; ++i)
        if ((*p)[i] > plan.size[i].factors[0].value / 2) {  // 2p > k, without overflow
          r_.error(Code::E0721, padding->value->span,
                   "padding " + std::to_string((*p)[i]) + " is more than half the window of " +
                       plan.size[i].str(),
                   "too much padding")
              .help = "as PyTorch: a window pads at most half its size";
          return Type::error();
        }
  }
  // `out=`: one axis per windowed axis, in order.
  std::vector<std::optional<Axis>> named(n);
  const auto* out_kw = kwarg(e, "out");
  if (out_kw) {
    const auto items = listed(*out_kw->value);
    if (items.size() != n) {
      r_.error(Code::E0722, out_kw->value->span,
               "`out=` names " + std::to_string(items.size()) + " axes for " + std::to_string(n) +
                   " windowed axes",
               "one per `over=` axis")
          .help = "name each windowed axis's result in order: `out=[H2 W2]`";
      return Type::error();
    }
    for (std::size_t i = 0; i < n; ++i) {
      named[i] = axis_from_name(*items[i], ctx);
      if (!named[i]) return Type::error();
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Axis& input = x.axes[plan.over[i]];
    no_lowering(ctx, input, over->value->span, name);
    const auto k = static_size(plan.size[i]);
    const auto pad = types::add_sizes(plan.before[i], plan.after[i]);
    const auto reach = k ? types::mul_sizes(plan.dilation[i], *k - 1) : std::nullopt;
    const bool keeps = plan.same || (plan.stride[i] == 1 && pad && reach && *pad == *reach);
    const auto size = static_size(input);
    types::WindowSize w{size.value_or(0), k.value_or(1),  plan.stride[i],
                        plan.dilation[i], plan.before[i], plan.after[i]};
    if (keeps) {
      if (named[i] && !axes_match(*named[i], input)) {
        r_.error(Code::E0722, out_kw->value->span,
                 "`" + name + "` keeps " + input.str() + "'s size, but `out=` names " +
                     named[i]->str(),
                 "the size stays " + input.str())
            .help = "name it " + input.str() + ", or drop `out=`";
        return Type::error();
      }
      continue;
    }
    const bool generic =
        std::any_of(input.factors.begin(), input.factors.end(),
                    [](const Factor& f) { return f.kind == Factor::Kind::generic; });
    if (generic) {
      r_.error(Code::E0723, spans[0],
               "`" + name + "` would change the size of " + input.str() +
                   ", an axis known only at run time",
               "generic axis " + input.str())
          .help =
          "a generic axis may only keep its size (stride 1, padding d*(k-1)/2 each side, "
          "or padding=same); declare a dim for this axis to change it";
      return Type::error();
    }
    if (!named[i]) {
      r_.error(Code::E0722, e.span,
               "`" + name + "` changes the size of " + input.str() +
                   (size && k ? ": " + w.formula() : std::string()),
               "no `out=`")
          .help = "name the result: `out=[" +
                  (size && k ? std::to_string(w.result()) : std::string("...")) +
                  (n > 1 ? " ...]`" : "]`") + ", or a dim of that size";
      return Type::error();
    }
    const auto want = static_size(*named[i]);
    if (size && k && want) {
      if (w.result() <= 0) {
        r_.error(
              Code::E0722, spans[0],
              "no window fits " + input.str() + " = " + std::to_string(*size) + ": " + w.formula(),
              "too small")
            .help = "pad more, or use a smaller window";
        return Type::error();
      }
      if (*want != w.result()) {
        r_.error(Code::E0722, out_kw->value->span,
                 "`" + name + "` leaves " + input.str() + " at " + w.formula() +
                     ", but `out=` names " + named[i]->str() + " = " + std::to_string(*want),
                 "should be " + std::to_string(w.result()))
            .help = "name a dim or literal of size " + std::to_string(w.result()) +
                    ", or change the stride or padding";
        return Type::error();
      }
    } else {
      typed_.window_checks.push_back({name, input, plan.size[i], *named[i], plan.stride[i],
                                      plan.dilation[i], plan.before[i], plan.after[i],
                                      out_kw->value->span.begin, out_kw->value->span.end});
    }
    out.axes[plan.over[i]] = *named[i];
  }
  typed_.windows[&e] = plan;
  return out;
}

}  // namespace ss::check
