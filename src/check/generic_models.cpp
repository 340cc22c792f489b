// Generic models (wave2 §2): `model Linear[I, O]` takes dims, local to it;
// `Linear[D, 4*D]` is an instance, a model of its own whose members are the
// base's with the dims substituted, named as the source writes it (hosts
// and checkpoints see "Linear[D, 4*D]", its members' names unchanged). In a
// signature `Linear[i, o]` binds generic axes from the argument's instance,
// as a tensor's axes do (user_call pairs a model type's dims like axes).
#include "check/checker_impl.hpp"

namespace ss::check {

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
  std::string list;
  for (const auto& d : dims) list += (list.empty() ? "" : ", ") + d;
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
