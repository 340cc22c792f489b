// Lowering of controller functions to their compact form (ir/host.hpp):
// variables get slots, statements become instructions and jumps, and each
// tensor-valued expression becomes one graph, lowered here, once.
#include <map>
#include <set>

#include "ir/host.hpp"
#include "lower/builtin_lowering.hpp"
#include "lower/host_kinds.hpp"
#include "lower/lower.hpp"

namespace ss::lower {
namespace {

using namespace ir;

using diag::Span;
using syntax::Expr;
using syntax::ExprKind;
using syntax::Stmt;
using syntax::StmtKind;
using types::Type;

class HostLowering {
 public:
  static bool lowers(const std::string& name) { return rules().count(name) > 0; }

  HostLowering(const check::TypedProgram& p, const std::string& name) : p_(p) {
    fn_.name = name;
    info_ = &p.functions.at(name);
  }

  HostFunction run() {
    for (const auto& param : info_->item->params) fn_.params.push_back(variable(param.name));
    if (info_->item->expr_body) {
      const int v = value(*info_->item->expr_body);
      emit({.op = HostOp::ret, .args = {v}});
    } else {
      collect_variables(info_->item->body);
      block(info_->item->body);
      emit({.op = HostOp::ret});
    }
    return std::move(fn_);
  }

 private:
  int variable(const std::string& name) {
    auto [it, added] = variables_.emplace(name, static_cast<int>(fn_.slots.size()));
    if (added) fn_.slots.push_back(name);
    return it->second;
  }

  int temporary() {
    fn_.slots.emplace_back();
    return static_cast<int>(fn_.slots.size()) - 1;
  }

  int emit(HostInstr instr) {
    fn_.code.push_back(std::move(instr));
    return static_cast<int>(fn_.code.size()) - 1;
  }

  int here() const { return static_cast<int>(fn_.code.size()); }

  // Every name the body binds gets its slot up front, so an expression that
  // reads one before a binding ran reads an unbound slot, not a dim or a
  // function of the same name.
  void collect_variables(const std::vector<Stmt>& stmts) {
    for (const auto& s : stmts) {
      for (const auto& t : s.targets)
        if (t->kind == ExprKind::name) variable(t->text);
      if (s.kind == StmtKind::for_) variable(s.loop_var);
      collect_variables(s.body);
      collect_variables(s.else_body);
    }
  }

  void block(const std::vector<Stmt>& stmts) {
    for (const auto& s : stmts) statement(s);
  }

  void statement(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::expr:
        (void)value(*s.value);
        return;
      case StmtKind::assign: {
        const int v = value(*s.value);
        for (std::size_t i = 0; i < s.targets.size(); ++i) {
          const Expr& target = *s.targets[i];
          if (target.kind == ExprKind::member && target.items[0]->kind == ExprKind::name &&
              variables_.count(target.items[0]->text)) {  // opt.lr = x
            HostInstr set{.op = HostOp::set_field,
                          .dst = variables_.at(target.items[0]->text),
                          .args = {v},
                          .text = target.text,
                          .span = target.span};
            set.reads.push_back({set.dst, target.items[0]->span});
            emit(std::move(set));
            continue;
          }
          if (target.kind != ExprKind::name) {
            unsupported("changing this field", target.span);
            continue;
          }
          const int slot = variable(target.text);
          if (s.targets.size() == 1)
            emit({.op = HostOp::copy, .dst = slot, .args = {v}, .span = s.span});
          else
            emit({.op = HostOp::item,
                  .dst = slot,
                  .args = {v},
                  .number = static_cast<double>(i),
                  .span = s.span});
        }
        return;
      }
      case StmtKind::return_:
        if (s.value)
          emit({.op = HostOp::ret, .args = {value(*s.value)}, .span = s.span});
        else
          emit({.op = HostOp::ret, .span = s.span});
        return;
      case StmtKind::break_:
        breaks_.back().push_back(emit({.op = HostOp::jump, .span = s.span}));
        return;
      case StmtKind::if_: {
        const int condition = value(*s.value);
        const int branch = emit({.op = HostOp::branch, .args = {condition}, .span = s.value->span});
        block(s.body);
        if (s.else_body.empty()) {
          fn_.code[static_cast<std::size_t>(branch)].target = here();
          return;
        }
        const int skip = emit({.op = HostOp::jump, .span = s.span});
        fn_.code[static_cast<std::size_t>(branch)].target = here();
        block(s.else_body);
        fn_.code[static_cast<std::size_t>(skip)].target = here();
        return;
      }
      case StmtKind::for_: {
        const int range = value(*s.value);
        const int counter = temporary();
        emit({.op = HostOp::loop_start, .dst = counter, .args = {range}, .span = s.value->span});
        const int head = emit({.op = HostOp::loop_next,
                               .dst = variable(s.loop_var),
                               .args = {range, counter},
                               .span = s.value->span});
        breaks_.emplace_back();
        block(s.body);
        emit({.op = HostOp::jump, .target = head, .span = s.span});
        for (const int b : breaks_.back()) fn_.code[static_cast<std::size_t>(b)].target = here();
        breaks_.pop_back();
        fn_.code[static_cast<std::size_t>(head)].target = here();
        return;
      }
    }
  }

  void unsupported(const std::string& what, Span at) {
    emit({.op = HostOp::unsupported, .text = what, .span = at});
  }

  int constant(HostKind kind, double number, std::string text = {}) {
    const int dst = temporary();
    emit({.op = HostOp::constant,
          .dst = dst,
          .text = std::move(text),
          .number = number,
          .kind = kind});
    return dst;
  }
  int integer_constant(std::int64_t whole) {
    const int dst = temporary();
    emit({.op = HostOp::constant, .dst = dst, .whole = whole, .kind = HostKind::integer});
    return dst;
  }

  // A variable's slot, noting the read so an unbound one is caught there.
  int read(const Expr& name, int slot, HostInstr& into) {
    into.reads.push_back({slot, name.span});
    return slot;
  }

  // The slot of an operand: a variable's own, else a temporary it computes.
  int operand(const Expr& e, HostInstr& into) {
    if (e.kind == ExprKind::name)
      if (const auto it = variables_.find(e.text); it != variables_.end())
        return read(e, it->second, into);
    return value(e);
  }

  int value(const Expr& e) {
    const Type& type = p_.type_of(e);
    switch (e.kind) {
      case ExprKind::integer:
        return integer_constant(e.int_value);
      case ExprKind::floating:
        return constant(HostKind::floating, e.float_value);
      case ExprKind::string:
        return constant(HostKind::string, 0, e.text);
      case ExprKind::fstring:
        return fstring(e);
      case ExprKind::name: {
        if (const auto it = variables_.find(e.text); it != variables_.end()) {
          // A copy, so a later binding of the variable can't change it.
          HostInstr copy{.op = HostOp::copy, .dst = temporary(), .span = e.span};
          copy.args = {read(e, it->second, copy)};
          const int dst = copy.dst;
          emit(std::move(copy));
          return dst;
        }
        if (const auto it = p_.dims.find(e.text); it != p_.dims.end()) {
          const int dst = temporary();
          emit({.op = HostOp::dim, .dst = dst, .text = e.text, .span = e.span});
          return dst;
        }
        if (p_.functions.count(e.text)) return constant(HostKind::function, 0, e.text);
        break;
      }
      case ExprKind::tuple: {
        HostInstr tuple{.op = HostOp::tuple, .dst = -1, .span = e.span};
        for (const auto& item : e.items) tuple.args.push_back(operand(*item, tuple));
        tuple.dst = temporary();
        const int dst = tuple.dst;
        emit(std::move(tuple));
        return dst;
      }
      case ExprKind::call:
        if (const auto slot = builtin_call(e)) return *slot;
        break;
      case ExprKind::binary:
        if (e.text == "|>") return pipe(e);
        break;
      default:
        break;
    }
    if ((type.is(Type::Kind::integer) || type.is(Type::Kind::floating)) &&
        ((e.kind == ExprKind::binary && e.text != "|>") ||
         (e.kind == ExprKind::unary && e.text == "-")))
      return arithmetic(e, type);
    if (numbers_compared(e)) return arithmetic(e, type);
    return tensors(e);
  }

  // A call's positional arguments (after the callee) as the instruction's
  // operands; its keyword arguments as parts, name and value.
  void positional(const Expr& call, HostInstr& instr) {
    for (std::size_t i = 1; i < call.items.size(); ++i)
      instr.args.push_back(operand(*call.items[i], instr));
  }
  void keywords(const Expr& call, HostInstr& instr) {
    for (const auto& kw : call.kwargs) {
      FormatPart part{.text = kw.name, .span = kw.value->span};
      part.slot = operand(*kw.value, instr);
      instr.parts.push_back(std::move(part));
    }
  }

  // Mlp(seed=0), or a generic model's instance, Linear[D, 4](seed=0).
  int make_model(const Expr& e, const std::string& name) {
    HostInstr instr{.op = HostOp::model, .text = name, .kind = HostKind::model, .span = e.span};
    keywords(e, instr);
    for (const auto& part : instr.parts)
      if (part.text == "seed") instr.args.push_back(part.slot);
    instr.parts.clear();
    instr.dst = temporary();
    const int dst = instr.dst;
    emit(std::move(instr));
    return dst;
  }

  // The controller's built-ins, each lowered by its rule, found by name
  // (check/builtins.def's SS_HOST_BUILTIN rows); a rule's nullopt leaves the call to
  // the tensor expressions (a pipe stage's name called on a tensor).
  using Rule = std::optional<int> (HostLowering::*)(const std::string& name, const Expr& e);
  static const std::map<std::string, Rule>& rules() {
    static const std::map<std::string, Rule> m = {
#define SS_DEVICE_BUILTIN(name, check_rule, lower_rule)
#define SS_HOST_BUILTIN(name, check_rule, host_rule) {name, &HostLowering::host_rule},
#include "check/builtins.def"
#undef SS_DEVICE_BUILTIN
#undef SS_HOST_BUILTIN
    };
    return m;
  }

  int finish(HostInstr instr) {
    const int dst = instr.dst;
    emit(std::move(instr));
    return dst;
  }

  std::optional<int> print_rule(const std::string&, const Expr& e) {
    HostInstr print{.op = HostOp::print, .span = e.span};
    positional(e, print);
    emit(std::move(print));
    return constant(HostKind::none, 0);
  }

  std::optional<int> sequence_rule(const std::string& name, const Expr& e) {  // range, shape
    HostInstr instr{.op = name == "range" ? HostOp::range : HostOp::shape, .span = e.span};
    positional(e, instr);
    instr.dst = temporary();
    return finish(std::move(instr));
  }

  std::optional<int> optimizer_rule(const std::string& name, const Expr& e) {
    HostInstr instr{
        .op = HostOp::optimizer, .text = name, .kind = HostKind::optimizer, .span = e.span};
    positional(e, instr);
    keywords(e, instr);
    instr.dst = temporary();
    return finish(std::move(instr));
  }

  std::optional<int> load_rule(const std::string&, const Expr& e) {
    const Type& type = p_.type_of(e);
    HostInstr instr{.op = HostOp::load, .text = type.name, .kind = kind_of(type), .span = e.span};
    if (type.is(Type::Kind::optimizer)) {  // AdamW[Mlp]: the kind, and the model's name
      instr.text = type.opt_kind;
      instr.models = {type.name};
    }
    positional(e, instr);
    instr.dst = temporary();
    return finish(std::move(instr));
  }

  std::optional<int> file_rule(const std::string& name, const Expr& e) {  // save, len
    HostInstr instr{.op = name == "save" ? HostOp::save : HostOp::len, .span = e.span};
    positional(e, instr);
    if (name == "save") {
      emit(std::move(instr));
      return constant(HostKind::none, 0);
    }
    instr.dst = temporary();
    return finish(std::move(instr));
  }

  std::optional<int> write_rule(const std::string&, const Expr& e) {
    HostInstr instr{.op = HostOp::write, .text = e.items[1]->text, .span = e.span};
    keywords(e, instr);
    emit(std::move(instr));
    return constant(HostKind::none, 0);
  }

  // A dataset's stage called on it (`shuffle(data, seed=1)`); `|> stage`
  // lowers in pipe().
  std::optional<int> stage_rule(const std::string&, const Expr& e) {
    if (e.items.size() < 2) return std::nullopt;
    const Type& first = p_.type_of(*e.items[1]);
    if (first.is(Type::Kind::dataset) || first.is(Type::Kind::batches)) return pipe(e);
    return std::nullopt;
  }

  std::optional<int> builtin_call(const Expr& e) {
    const Expr& callee = *e.items[0];
    if (callee.kind == ExprKind::index && p_.type_of(e).is(Type::Kind::model))
      return make_model(e, p_.type_of(e).name);
    if (callee.kind != ExprKind::name) return std::nullopt;
    const std::string& name = callee.text;
    if (p_.models.count(name)) return make_model(e, name);  // Mlp(seed=0)
    if (const auto rule = rules().find(name); rule != rules().end())
      if (const auto slot = (this->*rule->second)(name, e)) return slot;
    if (const auto fn = p_.functions.find(name);
        fn != p_.functions.end() && (fn->second.controller || fn->second.item->is_extern)) {
      // A controller function, or the host's (`extern fn`), called from here.
      // `f(mut m)`: m passed, and what f left in its parameter written back.
      HostInstr call{.op = HostOp::call, .text = name, .span = e.span};
      bool changes = false;
      for (std::size_t i = 1; i < e.items.size(); ++i) {
        const Expr& arg = *e.items[i];
        const bool by_mut = arg.kind == ExprKind::mut && arg.items[0]->kind == ExprKind::name &&
                            variables_.count(arg.items[0]->text);
        call.args.push_back(operand(by_mut ? *arg.items[0] : arg, call));
        call.writes.push_back(by_mut ? variables_.at(arg.items[0]->text) : -1);
        changes = changes || by_mut;
      }
      if (!changes) call.writes.clear();
      call.dst = temporary();
      return finish(std::move(call));
    }
    return std::nullopt;
  }

  // `a < b` of two controller numbers: compared exactly (64-bit ints), not
  // in a graph's i32 or f32.
  bool numbers_compared(const Expr& e) const {
    static const std::set<std::string> comparisons = {"==", "!=", "<", "<=", ">", ">="};
    return e.kind == ExprKind::binary && comparisons.count(e.text) &&
           p_.type_of(*e.items[0]).is_scalar_number() && p_.type_of(*e.items[1]).is_scalar_number();
  }

  int arithmetic(const Expr& e, const Type& type) {
    HostInstr instr{.op = HostOp::arith,
                    .text = e.kind == ExprKind::unary ? "neg" : e.text,
                    .kind = type.is(Type::Kind::integer)    ? HostKind::integer
                            : type.is(Type::Kind::floating) ? HostKind::floating
                                                            : HostKind::tensor,
                    .span = e.span};
    for (const auto& item : e.items) instr.args.push_back(operand(*item, instr));
    instr.dst = temporary();
    const int dst = instr.dst;
    emit(std::move(instr));
    return dst;
  }

  // The variables (tensors and numbers) an expression reads.
  // A call inside a tensor expression of a controller function or the
  // host's (`extern fn`): computed first, as a pipe is, its value an input.
  bool calls_controller(const Expr& e) const {
    if (e.kind != ExprKind::call || e.items[0]->kind != ExprKind::name) return false;
    const auto fn = p_.functions.find(e.items[0]->text);
    return fn != p_.functions.end() && (fn->second.controller || fn->second.item->is_extern);
  }

  void free_variables(const Expr& e, std::map<std::string, Type>& out,
                      std::vector<VariableRead>& reads) {
    // The controller's own work: computed first.
    if ((e.kind == ExprKind::binary && e.text == "|>") || calls_controller(e)) {
      const int slot = e.kind == ExprKind::binary ? pipe(e) : value(e);
      const std::string name = "$" + std::to_string(slot);
      fn_.slots[static_cast<std::size_t>(slot)] = name;
      variables_[name] = slot;
      out.emplace(name, p_.type_of(e));
      bound_[&e] = name;
      return;
    }
    if (e.kind == ExprKind::name) {
      const auto it = variables_.find(e.text);
      const Type& type = p_.type_of(e);
      if (it != variables_.end() && passes_to_graph(type)) {
        if (out.emplace(e.text, type).second) reads.push_back({it->second, e.span});
      }
      return;
    }
    for (std::size_t i = 0; i < e.items.size(); ++i) {
      if (e.kind == ExprKind::call && i == 0) continue;  // the callee
      if (e.items[i]) free_variables(*e.items[i], out, reads);
    }
    for (const auto& kw : e.kwargs) free_variables(*kw.value, out, reads);
  }

  // `data |> stage`: the stage's name, its positional argument and keywords.
  // `stage(data, ...)`, the same written as a call, comes here too.
  int pipe(const Expr& e) {
    HostInstr instr{.op = HostOp::pipe, .kind = kind_of(p_.type_of(e)), .span = e.span};
    if (e.kind == ExprKind::call) {
      instr.text = e.items[0]->text;
      positional(e, instr);
      keywords(e, instr);
      instr.dst = temporary();
      const int dst = instr.dst;
      emit(std::move(instr));
      return dst;
    }
    instr.args.push_back(operand(*e.items[0], instr));
    const Expr& stage = *e.items[1];
    if (stage.kind == ExprKind::name) {
      instr.text = stage.text;  // whole
    } else if (stage.kind == ExprKind::call && stage.items[0]->kind == ExprKind::name) {
      instr.text = stage.items[0]->text;
      positional(stage, instr);
      keywords(stage, instr);
    } else {
      unsupported("this pipe stage", stage.span);
      return constant(HostKind::none, 0);
    }
    instr.dst = temporary();
    const int dst = instr.dst;
    emit(std::move(instr));
    return dst;
  }

  int tensors(const Expr& e) {
    std::map<std::string, Type> variables;
    HostInstr instr{.op = HostOp::graph, .span = e.span};
    free_variables(e, variables, instr.reads);
    try {
      fn_.graphs.push_back(lower_expression(p_, e, variables, bound_));
    } catch (const NotLowered& failure) {
      emit({.op = HostOp::unsupported,
            .text = failure.what(),
            .span = failure.span,
            .code = failure.code,
            .help = failure.help});
      return constant(HostKind::none, 0);
    }
    Graph& graph = fn_.graphs.back();
    graph.batch = info_->batch_axes;
    // Named for --stats by the function it calls, else by the controller's.
    graph.name = e.kind == ExprKind::call && e.items[0]->kind == ExprKind::name
                     ? e.items[0]->text
                     : "expression in " + fn_.name;
    instr.target = static_cast<int>(fn_.graphs.size()) - 1;
    for (const int input : graph.inputs) {
      const std::string& name = graph.nodes[static_cast<std::size_t>(input)].name;
      if (name == "$seed" && !variables_.count(name)) {  // dropout's: the runner supplies it
        variables_[name] = temporary();
        fn_.slots.back() = name;
      }
      instr.args.push_back(variables_.at(variable_of(name)));
    }
    for (const auto& path : graph.updated) instr.writes.push_back(variables_.at(variable_of(path)));
    const Type& type = p_.type_of(e);
    instr.kind = kind_of(type);
    instr.models.push_back(type.is(Type::Kind::model) ? type.name : "");
    if (type.is(Type::Kind::tuple)) {
      instr.models.clear();
      for (const auto& item : type.items) {
        instr.items.push_back(kind_of(item));
        instr.models.push_back(item.is(Type::Kind::model) ? item.name : "");
      }
    }
    instr.dst = temporary();
    const int dst = instr.dst;
    emit(std::move(instr));
    return dst;
  }

  int fstring(const Expr& e) {
    HostInstr instr{.op = HostOp::format, .span = e.span};
    for (const auto& part : e.parts) {
      FormatPart out{.text = part.text, .spec = part.spec};
      if (part.expr) {
        out.slot = operand(*part.expr, instr);
        out.span = part.expr->span;
      }
      instr.parts.push_back(std::move(out));
    }
    instr.dst = temporary();
    const int dst = instr.dst;
    emit(std::move(instr));
    return dst;
  }

  const check::TypedProgram& p_;
  const check::FunctionInfo* info_ = nullptr;
  HostFunction fn_;
  std::map<std::string, int> variables_;
  std::vector<std::vector<int>> breaks_;      // per enclosing loop: its breaks' jumps
  std::map<const Expr*, std::string> bound_;  // pipes inside tensor expressions, by slot name
};

}  // namespace

HostFunction lower_controller_function(const check::TypedProgram& program,
                                       const std::string& function) {
  return HostLowering(program, function).run();
}

bool lowers_on_host(const std::string& name) {
  return HostLowering::lowers(name);
}

HostProgram lower_controller(const check::TypedProgram& program) {
  HostProgram out;
  for (const auto& [name, fn] : program.functions)
    if (fn.controller && !fn.item->is_extern)
      out.emplace(name, lower_controller_function(program, name));
  return out;
}

}  // namespace ss::lower
