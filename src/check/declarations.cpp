// Items: dims, the devices line, data records, models and function
// signatures, each resolved before any function body is checked.
#include <algorithm>
#include <cctype>

#include "check/checker_impl.hpp"

namespace ss::check {

const Field* RecordInfo::field(const std::string& name) const {
  for (const auto& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

const Member* ModelInfo::member(const std::string& name) const {
  for (const auto& m : members)
    if (m.name == name) return &m;
  return nullptr;
}

bool Checker::unique_item_name(const std::string& name, Span span) {
  if (is_builtin(name)) {
    r_.error(Code::E0303, span, "`" + name + "` is a built-in function's name", "built-in").help =
        "choose another name; built-in names can't be redefined";
    return false;
  }
  const auto [it, fresh] = item_names_.emplace(name, span);
  if (!fresh) {
    auto& d = r_.error(Code::E0302, span, "`" + name + "` is defined twice", "defined again here");
    r_.secondary(d, it->second, "first defined here");
    d.help = "dims, records, models, functions and sinks share one namespace; rename one";
  }
  return fresh;
}

void Checker::declare_items() {
  declare_devices();
  declare_dims();
  declare_records();
  declare_models();
  for (const auto& s : p_.sinks)
    if (unique_item_name(s.name, s.name_span)) sinks_[s.name] = s.name_span;
  declare_functions();
}

void Checker::declare_devices() {
  for (std::size_t i = 0; i < p_.devices.size(); ++i) {
    const auto& d = p_.devices[i];
    if (i > 0) {
      auto& diag = r_.error(Code::E1905, d.span, "a second `devices` line", "again here");
      r_.secondary(diag, p_.devices[0].span, "first here");
      diag.help = "list every device on one line: `devices cuda[0 1 2]`";
      continue;
    }
    if (d.kind != "cpu" && d.kind != "cuda") {
      r_.error(Code::E1904, d.kind_span, "unknown device kind `" + d.kind + "`",
               "not `cpu` or `cuda`")
          .help =
          "write `devices cpu`, `devices cuda[0]`, `devices cuda[0 1 2]` or `devices cpu[0 1]`";
      continue;
    }
    if (d.indexed && d.indices.empty()) {
      r_.error(Code::E1906, d.span, "`" + d.kind + "[]` lists no device", "empty list").help =
          "name at least one: `" + d.kind + "[0]`, or drop the brackets for one device";
      continue;
    }
    device_kind_ = d.kind;
    device_count_ = d.indexed ? static_cast<int>(d.indices.size()) : 1;
    device_indices_.assign(d.indices.begin(), d.indices.end());
  }
}

Type Checker::resolve_type(const TypeExpr& t, std::set<std::string>* generics, bool allow_generic,
                           bool allow_any_tensor) {
  switch (t.kind) {
    case TypeExpr::Kind::tensor: {
      std::vector<Axis> axes;
      for (const auto& a : t.axes) {
        auto axis = resolve_axis(a, generics, allow_generic);
        if (!axis) return Type::error();
        axes.push_back(std::move(*axis));
      }
      Elem elem;
      const std::string& e = t.elem;
      if (e.empty() || e == "f32")
        elem.kind = ElemKind::f32;
      else if (e == "bf16")
        elem.kind = ElemKind::bf16;
      else if (e == "f16")
        elem.kind = ElemKind::f16;
      else if (e == "i32")
        elem.kind = ElemKind::i32;
      else if (e == "bool")
        elem.kind = ElemKind::boolean;
      else if (e == "Index") {
        auto of = resolve_axis(*t.index_of, generics, allow_generic);
        if (!of) return Type::error();
        elem.kind = ElemKind::index;
        elem.index_of = std::move(*of);
      } else if (records_.count(e)) {
        if (axes.size() != 1) {
          r_.error(Code::E1004, t.span,
                   "a batch of `" + e + "` has " + std::to_string(axes.size()) + " axes",
                   "one axis expected")
              .help = "a batch of records has one axis, the batch axis: `[b] " + e + "`";
          return Type::error();
        }
        Type b = Type::of(Type::Kind::batch, e);
        b.batch_axis = axes[0];
        return b;
      } else if (models_.count(e) && !models_.at(e).stack) {
        return stack_type(t, generics, allow_generic);  // `[L] Block`
      } else {
        auto& d = r_.error(Code::E0501, t.elem_span, "unknown element type `" + e + "`",
                           "not an element type");
        d.help =
            "element types are f32, bf16, f16, i32, bool and Index[C]; a record's name makes a "
            "batch";
        if (e == "f64" || e == "float64" || e == "double")
          d.help = "shapescript has no f64; use f32";
        return Type::error();
      }
      return Type::tensor(std::move(axes), std::move(elem));
    }
    case TypeExpr::Kind::tuple: {
      Type out = Type::of(Type::Kind::tuple);
      for (const auto& item : t.args) {
        Type it = resolve_type(item, generics, allow_generic, allow_any_tensor);
        if (it.is_error()) return it;
        out.items.push_back(std::move(it));
      }
      return out;
    }
    case TypeExpr::Kind::named:
      break;
  }
  const std::string& n = t.name;
  const auto one_arg = [&](const char* what) -> const TypeExpr* {
    if (t.args.size() == 1 && t.args[0].kind == TypeExpr::Kind::named && !t.args[0].name.empty())
      return &t.args[0];
    r_.error(Code::E0306, t.span, "`" + n + "` takes one " + what + " name in brackets",
             "malformed type")
        .help = "write `" + n + "[Name]`";
    return nullptr;
  };
  if (n == "int" || n == "float" || n == "str") {
    return Type::of(n == "int"     ? Type::Kind::integer
                    : n == "float" ? Type::Kind::floating
                                   : Type::Kind::string);
  }
  if (n == "tensor") {
    if (allow_any_tensor) return Type::of(Type::Kind::any_tensor);
    r_.error(Code::E1602, t.span, "`tensor` (any shape) is only for an `extern fn`'s parameters",
             "here")
        .help = "give the shape: `[D C]`, with lowercase names for axes of any size";
    return Type::error();
  }
  if (n == "Dataset") {
    const TypeExpr* arg = one_arg("record");
    if (!arg) return Type::error();
    if (!records_.count(arg->name)) {
      r_.error(Code::E1405, arg->span, "`" + arg->name + "` is not a data record",
               "not a `data` item")
          .help = "a dataset holds records declared with `data " + arg->name + ":`";
      return Type::error();
    }
    return Type::of(Type::Kind::dataset, arg->name);
  }
  if (n == "SGD" || n == "Adam" || n == "AdamW") {
    const TypeExpr* arg = one_arg("model");
    if (!arg) return Type::error();
    if (!models_.count(arg->name)) {
      r_.error(Code::E0306, arg->span, "`" + arg->name + "` is not a model", "not a `model` item")
          .help = "an optimiser's type names the model it trains: `" + n + "[Mlp]`";
      return Type::error();
    }
    const Type m = model_type(*arg, generics, allow_generic);  // `AdamW[Linear[D, 4]]` too
    if (m.is_error()) return m;
    Type o = Type::of(Type::Kind::optimizer, m.name);
    o.axes = m.axes;
    o.opt_kind = n;
    return o;
  }
  if (models_.count(n)) return model_type(t, generics, allow_generic);
  if (records_.count(n) && t.args.empty()) return Type::of(Type::Kind::record, n);
  auto& d = r_.error(Code::E0306, t.span, "unknown type `" + n + "`", "not a type");
  d.help =
      "types are tensors `[D C]`, records, models, Dataset[R], SGD/Adam/AdamW[M], int, float, str";
  if (n == "f32" || n == "bool" || n == "i32") d.help = "a scalar is written `[] " + n + "`";
  return Type::error();
}

void Checker::declare_records() {
  for (const auto& item : p_.data) {
    if (!unique_item_name(item.name, item.name_span)) continue;
    records_[item.name].item = &item;
  }
  for (auto& [name, info] : records_) {
    for (const auto& f : info.item->fields) {
      if (info.field(f.name)) {
        r_.error(Code::E1002, f.name_span,
                 "field `" + f.name + "` is declared twice in `" + name + "`", "again")
            .help = "give each field its own name";
        continue;
      }
      Type t = resolve_type(f.type, nullptr, true);
      if (!t.is_error() && !t.is_tensor()) {
        r_.error(Code::E1003, f.type.span, "a record's field must be a tensor, not " + t.str(),
                 "not a tensor")
            .help = "fields are tensors: `x: [D]`, `label: [] Index[C]`";
        t = Type::error();
      }
      info.fields.push_back({f.name, std::move(t), f.name_span});
    }
  }
}

void Checker::declare_models() {
  for (const auto& item : p_.models) {
    if (!unique_item_name(item.name, item.name_span)) continue;
    models_[item.name].item = &item;
    std::set<std::string> seen;
    for (std::size_t k = 0; k < item.dims.size(); ++k) {
      const std::string& d = item.dims[k];
      if (dims_.count(d) || dim_aliases_.count(d) || !seen.insert(d).second)
        r_.error(Code::E1109, item.dim_spans[k],
                 seen.count(d) && !dims_.count(d) ? "`" + d + "` is named twice"
                                                  : "`" + d + "` is a program dim already",
                 "a model's own dim")
            .help =
            "a generic model's dims are its own: name them apart from the program's "
            "(`model Linear[I, O]` beside `dim D`)";
    }
  }
  static const std::set<std::string> kInits = {"zeros", "ones", "normal", "uniform", "glorot"};
  for (auto& [name, info] : models_) {
    if (!info.base.empty() || info.stack) continue;  // filled from its base (or element)
    local_dims_ = std::set<std::string>(info.item->dims.begin(), info.item->dims.end());
    for (const auto& m : info.item->members) {
      if (info.member(m.name)) {
        r_.error(Code::E1107, m.name_span,
                 "`" + m.name + "` is declared twice in model `" + name + "`", "again")
            .help = "give each parameter and sub-model its own name";
        continue;
      }
      Type t = resolve_type(m.type, nullptr, false);
      if (t.is_error()) {
        info.members.push_back({m.name, t, m.is_param, m.name_span});
        continue;
      }
      if (m.is_param) {
        if (!t.is_tensor()) {
          r_.error(Code::E1106, m.type.span, "a parameter must be a tensor, not " + t.str(),
                   "not a tensor")
              .help =
              "write `param w: [D C] = ...`; a sub-model is written without `param`: `enc: "
              "Encoder`";
          t = Type::error();
        } else if (!t.elem.is_float()) {
          r_.error(Code::E1106, m.type.span, "a parameter must hold floats, not " + t.elem.str(),
                   "not trainable")
              .help = "parameters are f32, bf16 or f16";
          t = Type::error();
        } else if (!m.init) {
          r_.error(Code::E1102, m.name_span, "parameter `" + m.name + "` has no initialiser",
                   "no `= ...`")
              .help =
              "give one: `= zeros`, `= normal(std=0.02)`, `= uniform(low=-0.1, high=0.1)` or `= "
              "glorot`";
        } else {
          const Expr& init = *m.init;
          const Expr* callee = init.kind == ExprKind::call ? init.items[0].get() : &init;
          if (callee->kind != ExprKind::name || !kInits.count(callee->text)) {
            r_.error(Code::E1103, init.span, "unknown initialiser", "not an initialiser").help =
                "initialisers are zeros, ones, normal(std=, mean=), uniform(low=, high=) and "
                "glorot";
          } else if (init.kind == ExprKind::call) {
            const std::string& fn = callee->text;
            if (init.items.size() > 1)
              r_.error(Code::E1104, init.items[1]->span,
                       "`" + fn + "` takes keyword arguments only", "positional")
                  .help = "name them: `normal(std=0.02)`";
            for (const auto& kw : init.kwargs) {
              const bool known = (fn == "normal" && (kw.name == "std" || kw.name == "mean")) ||
                                 (fn == "uniform" && (kw.name == "low" || kw.name == "high"));
              if (!known) {
                r_.error(Code::E0902, kw.name_span,
                         "`" + fn + "` has no argument `" + kw.name + "`", "unknown")
                    .help = fn == "normal"    ? "normal takes std= and mean="
                            : fn == "uniform" ? "uniform takes low= and high="
                                              : "`" + fn + "` takes no arguments";
                continue;
              }
              const Expr& v = *kw.value;
              if (v.kind != ExprKind::floating && v.kind != ExprKind::integer) {
                r_.error(Code::E1104, v.span, "`" + kw.name + "=` takes a number here",
                         "not a number")
                    .help = "initialisers take literal numbers";
              } else if (kw.name == "std" && v.float_value <= 0) {
                r_.error(Code::E1104, v.span, "`std=` must be positive", "not positive").help =
                    "a standard deviation is above 0";
              }
            }
            const auto low = std::find_if(init.kwargs.begin(), init.kwargs.end(),
                                          [](auto& k) { return k.name == "low"; });
            const auto high = std::find_if(init.kwargs.begin(), init.kwargs.end(),
                                           [](auto& k) { return k.name == "high"; });
            if (fn == "uniform" && low != init.kwargs.end() && high != init.kwargs.end() &&
                low->value->float_value >= high->value->float_value)
              r_.error(Code::E1104, init.span, "`uniform` needs low below high", "empty range")
                  .help = "write `uniform(low=-0.1, high=0.1)`";
          }
        }
      } else if (!t.is(Type::Kind::model)) {
        r_.error(Code::E1106, m.type.span,
                 "a model's member is a `param` or a sub-model, not " + t.str(), "not a model")
            .help = t.is_tensor()
                        ? "mark a trainable tensor with `param`: `param " + m.name + ": ...`"
                        : "a sub-model's type is a model's name";
        t = Type::error();
      }
      info.members.push_back({m.name, std::move(t), m.is_param, m.name_span});
    }
  }
  local_dims_.clear();
  models_resolved_ = true;
  fill_instances();
  // A model can't contain itself, however deeply.
  for (const auto& [name, info] : models_) {
    if (!info.base.empty() || info.stack) continue;  // its base's (its element's) check covers it
    std::vector<std::string> stack = {name};
    std::set<std::string> seen;
    while (!stack.empty()) {
      const std::string current = stack.back();
      stack.pop_back();
      for (const auto& m : models_[current].members) {
        if (!m.type.is(Type::Kind::model)) continue;
        if (types::model_base(m.type.name) == name) {
          r_.error(Code::E1105, info.item->name_span, "model `" + name + "` contains itself",
                   "through `" + m.name + "`")
              .help = "a model's sub-models can't lead back to it";
          stack.clear();
          break;
        }
        if (seen.insert(m.type.name).second) stack.push_back(m.type.name);
      }
    }
  }
}

void Checker::declare_functions() {
  for (const auto& f : p_.fns) {
    if (!unique_item_name(f.name, f.name_span)) continue;
    FnInfo& info = fns_[f.name];
    info.item = &f;
    std::set<std::string> seen;
    for (const auto& param : f.params) {
      if (!seen.insert(param.name).second)
        r_.error(Code::E0305, param.name_span, "parameter `" + param.name + "` is declared twice",
                 "again")
            .help = "give each parameter its own name";
      Type t = resolve_type(param.type, &info.generics, true, f.is_extern);
      if (f.is_extern && !t.is_error() && !t.is_tensor() && !t.is(Type::Kind::any_tensor) &&
          !t.is_scalar_number() && !t.is(Type::Kind::string)) {
        r_.error(Code::E1602, param.type.span, "an `extern fn` can't take " + t.str(),
                 "not a host value")
            .help =
            "host functions take tensors (`[S]`, or `tensor` for any shape), ints, floats and "
            "strings";
        t = Type::error();
      }
      if (param.is_mut && !t.is_error() && !t.is(Type::Kind::model) &&
          !t.is(Type::Kind::optimizer)) {
        r_.error(Code::E1507, param.mut_span, "`mut` on a parameter of type " + t.str(),
                 "can't change")
            .help = "only models and optimisers change in place; return a new value instead";
      }
      info.params.push_back(std::move(t));
    }
    if (f.ret) {
      info.has_ret = true;
      std::set<std::string> ret_generics;
      info.ret = resolve_type(*f.ret, &ret_generics, true);
      for (const auto& g : ret_generics) {
        if (info.generics.count(g)) continue;
        r_.error(Code::E0908, f.ret->span,
                 "the return type's axis `" + g + "` is bound by no parameter",
                 "`" + g + "` appears only here")
            .help =
            "a generic axis takes its size from the arguments; use it in a parameter's type, or a "
            "dim";
        info.ret = Type::error();
      }
    } else if (f.is_extern) {
      r_.error(Code::E1601, f.name_span, "`extern fn " + f.name + "` declares no return type",
               "needs `-> T`")
          .help = "say what the host returns: `extern fn " + f.name + "(...) -> []`";
    }
  }
}

}  // namespace ss::check
