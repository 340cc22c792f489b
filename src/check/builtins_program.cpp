// The built-ins of the program's world: constructors, datasets and their
// pipes, training (value_and_grad, update, optimisers), files and sinks.
#include "check/checker_impl.hpp"

namespace ss::check {
namespace {

bool literal_number(const Expr& e) {
  return e.kind == ExprKind::integer || e.kind == ExprKind::floating;
}

}  // namespace

Type Checker::program_builtin(const std::string& name, const Expr& e, std::vector<Type>& args,
                              std::vector<Span>& spans, FnCtx& ctx, const Type* expected) {
  const auto count = [&](std::size_t lo, std::size_t hi) {
    return arg_count(name, e, args.size(), lo, hi);
  };
  // The first positional argument as written (not piped), for shapes.
  const std::size_t piped = args.size() - (e.items.size() - 1);
  const auto written = [&](std::size_t i) -> const Expr* {
    return i >= piped && i - piped + 1 < e.items.size() ? e.items[i - piped + 1].get() : nullptr;
  };
  const auto model_of = [&](std::size_t i, const char* role) -> const Type* {
    if (args[i].is(Type::Kind::model)) return &args[i];
    r_.error(Code::E0505, spans[i], "`" + name + "` needs " + role + ", not " + args[i].str(),
             "not a model")
        .help = "pass a model, such as `m` made by `Mlp(seed=0)`";
    return nullptr;
  };

  // ---- constructors ----
  if (name == "zeros" || name == "ones" || name == "full" || name == "normal" ||
      name == "uniform") {
    if (name == "normal")
      check_kwargs(e, {"std", "mean", "seed"}, name);
    else if (name == "uniform")
      check_kwargs(e, {"low", "high", "seed"}, name);
    else
      check_kwargs(e, {}, name);
    if (!count(name == "full" ? 2 : 1, name == "full" ? 2 : 1)) return Type::error();
    const Expr* shape = written(0);
    if (!shape) return Type::error();
    auto axes = shape_from_expr(*shape, ctx);
    if (!axes) return Type::error();
    Elem elem;
    if (name == "full") {
      const Type v = as_tensor(args[1]);
      if (!v.is_tensor() || !v.axes.empty()) {
        r_.error(Code::E0505, spans[1], "`full` fills with a number, not " + args[1].str(),
                 "not a number");
        return Type::error();
      }
      if (!v.elem.weak) elem = v.elem;
    }
    if (const auto* std = kwarg(e, "std");
        std && literal_number(*std->value) && std->value->float_value <= 0)
      r_.error(Code::E0912, std->value->span, "`std=` must be positive", "not positive");
    return Type::tensor(std::move(*axes), elem);
  }
  if (name == "arange") {
    check_kwargs(e, {}, name);
    if (!count(1, 1)) return Type::error();
    const Expr* n = written(0);
    if (!n) return Type::error();
    auto axis = axis_from_name(*n, ctx);
    if (!axis) return Type::error();
    return Type::tensor({*axis}, Elem{ElemKind::index, *axis, false});
  }

  // ---- printing, files, sinks ----
  if (name == "print") {
    check_kwargs(e, {}, name);
    return Type::none();
  }
  if (name == "shape") {
    if (!count(1, 1)) return Type::error();
    if (!as_tensor(args[0]).is_tensor())
      r_.error(Code::E0505, spans[0], "`shape` needs a tensor, not " + args[0].str(),
               "not a tensor");
    return Type::of(Type::Kind::shape);
  }
  if (name == "write") {
    if (args.empty() || !args[0].is(Type::Kind::sink)) {
      r_.error(
            Code::E1701, args.empty() ? e.span : spans[0],
            "`write` sends to a sink" + std::string(args.empty() ? "" : ", not " + args[0].str()),
            "not a sink")
          .help =
          "declare one at the top level (`sink metrics`) and name it first: `write(metrics, "
          "loss=l)`";
      return Type::none();
    }
    if (args.size() > 1)
      r_.error(Code::E0901, spans[1], "`write` takes the sink, then keyword arguments",
               "positional")
          .help = "name each value: `write(metrics, epoch=epoch, loss=l)`";
    if (e.kwargs.empty())
      r_.error(Code::E0903, e.span, "`write` sends no values", "nothing to write").help =
          "name the values to record: `write(metrics, loss=l)`";
    // A record holds numbers: a tensor of several elements would lose all but
    // its first, so only scalars are written.
    for (const auto& kw : e.kwargs) {
      const Type t = expr(*kw.value, ctx);
      if (t.is_error() || t.is_one_number()) continue;
      auto& d = r_.error(Code::E1708, kw.value->span,
                         "`write` records numbers, and `" + kw.name + "` is " + t.str(),
                         t.is_tensor() ? "a tensor of shape " + axes_str(t.axes) : "not a number");
      d.help = t.is_tensor() ? "write one number: reduce it (`" + kw.name +
                                   "=mean(...)`, `sum`, "
                                   "`max`), or `save` a whole tensor in a model"
                             : "write a number or a scalar tensor (`[]`)";
    }
    return Type::none();
  }
  if (name == "save") {
    check_kwargs(e, {}, name);
    if (!count(2, 2)) return Type::none();
    if (!args[0].is(Type::Kind::model) && !args[0].is(Type::Kind::optimizer))
      r_.error(Code::E1702, spans[0], "`save` writes models and optimisers, not " + args[0].str(),
               "can't be saved")
          .help = "save a model (`save(m, \"m.safetensors\")`) or an optimiser's state";
    if (!args[1].is(Type::Kind::string))
      r_.error(Code::E1703, spans[1], "a path is a string, not " + args[1].str(), "not a string")
          .help = "write the path in quotes: \"model.safetensors\"";
    return Type::none();
  }
  if (name == "load") {
    check_kwargs(e, {}, name);
    if (!count(1, 1)) return Type::error();
    if (!args[0].is(Type::Kind::string)) {
      r_.error(Code::E1703, spans[0], "a path is a string, not " + args[0].str(), "not a string")
          .help = "write the path in quotes: \"train.safetensors\"";
      return Type::error();
    }
    if (expected && expected->is_error()) return Type::error();
    if (!expected || !(expected->is(Type::Kind::dataset) || expected->is(Type::Kind::model) ||
                       expected->is(Type::Kind::optimizer))) {
      r_.error(Code::E1401, e.span, "`load` needs the type of what it loads", "type unknown").help =
          expected ? "load gives a Dataset[R], a model or an optimiser, not " + expected->str()
                   : "annotate the binding: `train: Dataset[Digit] = load(\"train.safetensors\")`";
      return Type::error();
    }
    return *expected;
  }
  if (name == "range") {
    check_kwargs(e, {}, name);
    if (!count(1, 2)) return Type::error();
    Type out = Type::of(Type::Kind::range);
    for (std::size_t i = 0; i < args.size(); ++i)
      if (!args[i].is(Type::Kind::integer))
        r_.error(Code::E0606, spans[i], "`range` counts with integers, not " + args[i].str(),
                 "not an integer");
    return out;
  }
  if (name == "len") {
    check_kwargs(e, {}, name);
    if (!count(1, 1)) return Type::error();
    if (!args[0].is(Type::Kind::dataset) && !args[0].is(Type::Kind::batches))
      r_.error(Code::E1404, spans[0], "`len` counts a dataset's examples, not " + args[0].str(),
               "not a dataset")
          .help = "a tensor's sizes are its dims: use the dim's name as a number";
    return Type::of(Type::Kind::integer);
  }

  // ---- datasets ----
  if (name == "shuffle" || name == "batches" || name == "take" || name == "whole" ||
      name == "split" || name == "map") {
    if (name == "shuffle")
      check_kwargs(e, {"seed"}, name);
    else if (name == "split")
      check_kwargs(e, {"frac", "seed"}, name);
    else
      check_kwargs(e, {}, name);
    // A seed may be computed (`seed=1000 * run + epoch`): typed, so it lowers.
    if (const auto* seed = kwarg(e, "seed")) {
      const Type s = expr(*seed->value, ctx);
      if (!s.is(Type::Kind::integer) && !s.is_error()) {
        r_.error(Code::E0606, seed->value->span, "`seed=` takes an integer, not " + s.str(),
                 "not an integer");
        return Type::error();
      }
    }
    const std::size_t want = (name == "batches" || name == "take" || name == "map") ? 2 : 1;
    if (!count(want, want)) return Type::error();
    const Type& data = args[0];
    const bool stage_ok =
        data.is(Type::Kind::dataset) || (data.is(Type::Kind::batches) && name == "take");
    if (!stage_ok) {
      r_.error(Code::E1404, spans[0], "`" + name + "` takes a dataset, not " + data.str(),
               "not a dataset")
          .help = data.is(Type::Kind::batches)
                      ? "shuffle and split the dataset before `batches`"
                      : "start from a dataset: `data |> " + name + "(...)`";
      return Type::error();
    }
    if (name == "shuffle" || name == "take") {
      if (name == "take" && !args[1].is(Type::Kind::integer))
        r_.error(Code::E0606, spans[1], "`take` counts with an integer, not " + args[1].str(),
                 "not an integer");
      return data;
    }
    if (name == "batches") {
      if (!args[1].is(Type::Kind::integer)) {
        r_.error(Code::E1402, spans[1], "a batch size is an integer, not " + args[1].str(),
                 "not an integer")
            .help = "write `batches(64)`";
        return Type::error();
      }
      const Expr* n = written(1);
      if (n && n->kind == ExprKind::integer && n->int_value <= 0) {
        r_.error(Code::E1402, n->span, "a batch size of " + std::to_string(n->int_value),
                 "not positive")
            .help = "batches hold 1 or more examples";
        return Type::error();
      }
      Type out = Type::of(Type::Kind::batches, data.name);
      out.batch_axis = fresh_batch_axis(ctx);
      return out;
    }
    if (name == "whole") {
      Type out = Type::of(Type::Kind::batch, data.name);
      out.batch_axis = fresh_batch_axis(ctx);
      ctx.fn->batch_axes.insert(out.batch_axis.factors[0].name);
      return out;
    }
    if (name == "split") {
      const auto* frac = kwarg(e, "frac");
      if (!frac) {
        r_.error(Code::E0903, e.span, "`split` needs `frac=`", "no fraction").help =
            "write `split(data, frac=0.8, seed=0)`";
        return Type::error();
      }
      if (literal_number(*frac->value) &&
          (frac->value->float_value <= 0 || frac->value->float_value >= 1))
        r_.error(Code::E0912, frac->value->span, "`frac=` must lie strictly between 0 and 1",
                 "out of range")
            .help = "the first part's share: `frac=0.8`";
      Type out = Type::of(Type::Kind::tuple);
      out.items = {data, data};
      return out;
    }
    // map(data, f): f takes a record and returns one.
    if (!args[1].is(Type::Kind::function)) {
      r_.error(Code::E1404, spans[1], "`map` applies a function, not " + args[1].str(),
               "not a function");
      return Type::error();
    }
    const FnInfo& f = fns_.at(args[1].name);
    if (f.params.size() != 1 || !f.params[0].is(Type::Kind::record) ||
        f.params[0].name != data.name || !f.ret.is(Type::Kind::record)) {
      r_.error(Code::E1404, spans[1], "`map` needs a function from " + data.name + " to a record",
               "wrong signature")
          .help = "declare it `fn f(ex: " + data.name + ") -> Rec`";
      return Type::error();
    }
    return Type::of(Type::Kind::dataset, f.ret.name);
  }

  // ---- training ----
  if (name == "value_and_grad" || name == "grad") {
    check_kwargs(e, {}, name);
    if (args.size() < 2) {
      r_.error(Code::E0901, e.span,
               "`" + name + "` takes a function, a model and the function's other arguments",
               "too few")
          .help = "write `" + name + "(loss, m, batch)`";
      return Type::error();
    }
    if (!args[0].is(Type::Kind::function)) {
      r_.error(Code::E1203, spans[0],
               "`" + name + "` differentiates a function, not " + args[0].str(), "not a function")
          .help = "name the function: `" + name + "(loss, m, batch)`";
      return Type::error();
    }
    FnInfo& f = fns_.at(args[0].name);
    if (f.params.empty() || !f.params[0].is(Type::Kind::model)) {
      r_.error(Code::E1202, spans[0], "`" + f.item->name + "`'s first parameter must be the model",
               "not a model first")
          .help =
          "differentiation is with respect to the first argument, a model: `fn loss(m: M, ...)`";
      return Type::error();
    }
    std::vector<Type> call_args(args.begin() + 1, args.end());
    std::vector<Span> call_spans(spans.begin() + 1, spans.end());
    const Type value = user_call(e, f, call_args, call_spans, ctx, false);
    if (value.is_error()) return value;
    if (!value.is_tensor() || !value.axes.empty() || !value.elem.is_float()) {
      auto& d = r_.error(Code::E1201, spans[0],
                         "`" + f.item->name + "` returns " + value.str() + ", not a scalar",
                         "differentiated");
      if (f.item->ret) r_.secondary(d, f.item->ret->span, "declared here");
      d.help = "differentiate a scalar loss, `-> []`: reduce with mean or sum";
      return Type::error();
    }
    const Type grad = f.params[0];
    if (name == "grad") return grad;
    Type out = Type::of(Type::Kind::tuple);
    out.items = {value, grad};
    return out;
  }
  if (name == "update") {
    check_kwargs(e, {}, name);
    if (!count(3, 3)) return Type::none();
    const Type* m = model_of(0, "the model");
    if (!m) return Type::none();
    if (!args[1].is(Type::Kind::optimizer)) {
      r_.error(Code::E0505, spans[1], "`update` needs an optimiser, not " + args[1].str(),
               "not an optimiser")
          .help = "make one: `opt = AdamW(m, lr=1e-3)`";
      return Type::none();
    }
    if (args[1].name != m->name)
      r_.error(Code::E1301, spans[1],
               "the optimiser trains " + args[1].name + ", the model is " + m->name,
               "for another model")
          .help = "make an optimiser for this model: `" + args[1].opt_kind + "(m, ...)`";
    if (!args[2].is(Type::Kind::model) || args[2].name != m->name)
      r_.error(Code::E1304, spans[2], "the gradient is " + args[2].str() + ", the model " + m->name,
               "not this model's gradient")
          .help = "pass the gradient that value_and_grad gave for this model";
    for (std::size_t i = 0; i < 2 && piped == 0; ++i) {
      const Expr& arg = *e.items[i + 1];
      if (arg.kind != ExprKind::mut) {
        r_.error(Code::E1302, arg.span,
                 "`update` changes its " + std::string(i == 0 ? "model" : "optimiser") +
                     ": pass it with `mut`",
                 "needs `mut`")
            .help = "write `update(mut m, mut opt, g)`";
        continue;
      }
      const Expr& inner = *arg.items[0];
      if (inner.kind == ExprKind::name) {
        const auto it = ctx.vars.find(inner.text);
        if (it != ctx.vars.end() && it->second.is_param && !it->second.is_mut)
          r_.error(Code::E1504, inner.span,
                   "`" + inner.text + "` is changed, but the parameter isn't `mut`",
                   "not `mut` here")
              .help = "declare it `mut " + inner.text + ": " + args[i].str() + "`";
      }
    }
    return Type::none();
  }
  if (name == "clip_norm" || name == "norm") {
    check_kwargs(e, {}, name);
    if (!count(name == "norm" ? 1 : 2, name == "norm" ? 1 : 2)) return Type::error();
    const Type* g = model_of(0, "a gradient");
    if (!g) return Type::error();
    return name == "norm" ? Type::scalar() : *g;
  }
  if (name == "SGD" || name == "Adam" || name == "AdamW") {
    if (name == "SGD")
      check_kwargs(e, {"lr", "momentum", "nesterov", "weight_decay", "dampening"}, name);
    else
      check_kwargs(e, {"lr", "beta1", "beta2", "eps", "weight_decay"}, name);
    if (!count(1, 1)) return Type::error();
    const Type* m = model_of(0, "the model it trains");
    if (!m) return Type::error();
    for (const auto& kw : e.kwargs) {
      const Type v = expr(*kw.value, ctx);
      if (kw.name == "nesterov") continue;
      if (!v.is_scalar_number() && !v.is_error()) {
        r_.error(Code::E1303, kw.value->span, "`" + kw.name + "=` takes a number, not " + v.str(),
                 "not a number");
        continue;
      }
      const bool negative = literal_number(*kw.value) && kw.value->float_value < 0;
      const bool beta_out = (kw.name == "beta1" || kw.name == "beta2") &&
                            literal_number(*kw.value) && kw.value->float_value >= 1;
      const bool zero_lr =
          kw.name == "lr" && literal_number(*kw.value) && kw.value->float_value <= 0;
      if (negative || beta_out || zero_lr)
        r_.error(Code::E1303, kw.value->span,
                 "`" + kw.name + "=` can't be " + std::string(r_.map().slice(kw.value->span)),
                 "out of range")
            .help = kw.name == "lr" ? "a learning rate is positive: `lr=1e-3`"
                    : beta_out      ? "betas lie in [0, 1): `beta1=0.9`"
                                    : "this setting is 0 or more";
    }
    Type out = Type::of(Type::Kind::optimizer, m->name);
    out.axes = m->axes;  // a generic model's instance: its dims
    out.opt_kind = name;
    return out;
  }
  r_.error(Code::E0301, e.span, "`" + name + "` isn't available here", "unknown");
  return Type::error();
}

}  // namespace ss::check
