// Generic models (wave2 §2): `model Linear[I, O]` takes dims, local to it;
// `Linear[D, 4*D]` is an instance, a model of its own whose members are the
// base's with the dims substituted, named as the source writes it (hosts
// and checkpoints see "Linear[D, 4*D]", its members' names unchanged). In a
// signature `Linear[i, o]` binds generic axes from the argument's instance,
// as a tensor's axes do (user_call pairs a model type's dims like axes).
#include "check/checker_impl.hpp"

namespace ss::check {

namespace {

std::string joined(const std::vector<std::string>& dims) {  // "I, O"
  std::string list;
  for (const auto& d : dims) list += (list.empty() ? "" : ", ") + d;
  return list;
}

}  // namespace

Type Checker::model_type(const TypeExpr& t, std::set<std::string>* generics, bool allow_generic) {
  const std::string& n = t.name;
  const ModelInfo& base = models_.at(n);
  const std::vector<std::string> none;
  const auto& dims = base.item ? base.item->dims : none;
  if (dims.empty()) {
    if (t.args.empty()) return Type::of(Type::Kind::model, n);
    r_.error(Code::E1108, t.span, "`" + n + "` is a model generic in no dims", "given dims").help =
        "write `" + n + "`";
    return Type::error();
  }
  const std::string list = joined(dims);
  bool axes = t.axis_args.size() == dims.size();
  for (const auto& a : t.axis_args) axes = axes && a.has_value();
  if (!axes) {
    r_.error(Code::E1108, t.span,
             "`" + n + "` is generic in " + std::to_string(dims.size()) + " dim" +
                 (dims.size() == 1 ? "" : "s") + " (" + list + "), given " +
                 std::to_string(t.axis_args.size()),
             t.args.empty() ? "no dims" : "wrong dims")
        .help = "instantiate it with dims, dim expressions or sizes: `" + n + "[" + list +
                "]` as `" + n + "[D" + (dims.size() > 1 ? ", 4*D" : "") + "]`";
    return Type::error();
  }
  std::vector<Axis> args;
  for (const auto& a : t.axis_args) {
    auto axis = resolve_axis(*a, generics, allow_generic);
    if (!axis) return Type::error();
    args.push_back(std::move(*axis));
  }
  return instance(n, std::move(args));
}

Type Checker::model_constructor(const Expr& e, const std::string& base,
                                const std::vector<const Expr*>& dims, const std::vector<Type>& args,
                                const std::vector<Span>& spans, FnCtx& ctx) {
  const auto& declared = models_.at(base).item->dims;
  const std::string spelled = dims.empty() ? base : base + "[...]";
  check_kwargs(e, {"seed"}, spelled);
  if (!args.empty())
    r_.error(Code::E0901, spans[0], "`" + spelled + "(...)` takes only `seed=`", "positional")
        .help = "make a model with `" + spelled + "(seed=0)`";
  if (const auto* seed = kwarg(e, "seed")) {
    const Type s = expr(*seed->value, ctx);
    if (!s.is(Type::Kind::integer) && !s.is_error())
      r_.error(Code::E0606, seed->value->span, "`seed=` takes an integer, not " + s.str(),
               "not an integer");
  }
  if (dims.size() != declared.size()) {  // a generic model bare, or a plain one given dims
    const std::string list = joined(declared);
    r_.error(Code::E1108, e.items[0]->span,
             "`" + base + "` is generic in " + std::to_string(declared.size()) + " dims" +
                 (list.empty() ? "" : " (" + list + ")") + ", given " + std::to_string(dims.size()),
             "wrong dims")
        .help = declared.empty() ? "make it with `" + base + "(seed=0)`"
                                 : "give one dim per `" + base + "` dim: `" + base + "[" + list +
                                       "](seed=0)` as `" + base + "[D" +
                                       (declared.size() > 1 ? ", 4" : "") + "](seed=0)`";
    return Type::error();
  }
  if (dims.empty()) return Type::of(Type::Kind::model, base);
  std::vector<Axis> dim_args;
  for (const Expr* d : dims) {
    auto a = axis_from_name(*d, ctx);
    if (!a) return Type::error();
    for (const auto& f : a->factors)
      if (f.kind == Factor::Kind::generic) {
        r_.error(Code::E1108, d->span,
                 "a model made here needs its dims' sizes, not `" + f.name + "`", "a generic axis")
            .help = "make it with program dims or sizes: `" + base + "[D, 4](seed=0)`";
        return Type::error();
      }
    dim_args.push_back(std::move(*a));
  }
  return instance(base, std::move(dim_args));
}

Type Checker::instance(const std::string& base, std::vector<Axis> args) {
  const std::string name = types::instance_name(base, args);
  auto [it, fresh] = models_.try_emplace(name);
  if (fresh) {
    it->second.item = models_.at(base).item;
    it->second.base = base;
    it->second.args = args;
    if (models_resolved_) fill_instance(name);
  }
  Type t = Type::of(Type::Kind::model, name);
  t.axes = std::move(args);
  return t;
}

void Checker::fill_instance(const std::string& name) {
  ModelInfo& info = models_.at(name);
  if (info.filled) return;
  info.filled = true;
  // Models that hold each other's instances with growing dims (A[I] holds
  // B[I], which holds A[2*I]) would fill forever: E1105 reports the cycle.
  if (fill_depth_ > 32) return;
  struct Depth {
    int& d;
    explicit Depth(int& x) : d(++x) {}
    ~Depth() { --d; }
  } depth(fill_depth_);
  std::map<std::string, Axis> bindings;
  for (std::size_t k = 0; k < info.item->dims.size() && k < info.args.size(); ++k)
    bindings[info.item->dims[k]] = info.args[k];
  const std::vector<Member> members = models_.at(info.base).members;  // a copy: filling adds models
  std::vector<Member> out;
  for (const Member& m : members) {
    Member s = m;
    s.type = substitute(m.type, bindings);
    // A sub-model that is an instance itself (`up: Linear[I, 4*I]`): made too,
    // unless it leads back to this model's own base (E1105 reports that).
    if (s.type.is(Type::Kind::model) && !s.type.axes.empty() &&
        types::model_base(s.type.name) != info.base)
      s.type = instance(types::model_base(s.type.name), s.type.axes);
    out.push_back(std::move(s));
  }
  models_.at(name).members = std::move(out);
}

void Checker::fill_instances() {
  std::vector<std::string> pending;
  for (const auto& [name, info] : models_)
    if (!info.base.empty() && !info.filled) pending.push_back(name);
  for (const auto& name : pending) fill_instance(name);
}

}  // namespace ss::check
