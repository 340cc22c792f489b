// Where functions run (the design's section 6): a function that loops over a
// dataset (not a range, a stack's layers or a tensor's slices), prints, saves, loads, writes to a
// sink or calls an `extern fn` runs in the controller, and so does one that calls such a function.
// This is read off the syntax, before types, so the body checks know where they are.
#include <functional>

#include "check/checker_impl.hpp"

namespace ss::check {
namespace {

struct Scan {
  const std::map<std::string, FnInfo>& fns;
  const std::map<std::string, ModelInfo>& models;
  FnInfo& fn;

  void controller(Span span, const std::string& why) {
    if (fn.controller) return;
    fn.controller = true;
    fn.controller_reason = span;
    fn.controller_why = why;
  }

  void expr(const Expr* e) {
    if (!e) return;
    if (e->kind == ExprKind::call && e->items[0]->kind == ExprKind::name) {
      const std::string& name = e->items[0]->text;
      if (name == "print" || name == "save" || name == "load" || name == "write")
        controller(e->span, "it calls `" + name + "`");
      // Making a model or an optimiser draws and holds state: the controller's.
      if (name == "SGD" || name == "Adam" || name == "AdamW" || models.count(name))
        controller(e->span, "it makes `" + name + "`");
      if (name == "value_and_grad" || name == "grad" || name == "update")
        fn.device_work.push_back(e->span);
      if (auto it = fns.find(name); it != fns.end()) {
        fn.callees.insert(name);
        if (it->second.item->is_extern)
          controller(e->span, "it calls the host function `" + name + "`");
      }
    }
    if (e->kind == ExprKind::binary && e->text == "|>" && e->items[1]->kind == ExprKind::name &&
        fns.count(e->items[1]->text))
      fn.callees.insert(e->items[1]->text);
    for (const auto& item : e->items) expr(item.get());
    for (const auto& kw : e->kwargs) expr(kw.value.get());
    for (const auto& part : e->parts) expr(part.expr.get());
  }

  // A device loop's steps: `slices(x, over=T)`, a model's stack
  // (`m.blocks`), or a parameter declared as one (`blocks: [L] Block`).
  bool scan(const Expr& it) const {
    if (it.kind == ExprKind::call) return is_call_to(it, "slices");
    if (it.kind == ExprKind::member) return true;
    if (it.kind != ExprKind::name) return false;
    for (const auto& p : fn.item->params)
      if (p.name == it.text)
        return p.type.kind == syntax::TypeExpr::Kind::tensor && models.count(p.type.elem);
    return false;
  }

  void block(const std::vector<Stmt>& body) {
    for (const auto& s : body) stmt(s);
  }

  void stmt(const Stmt& s) {
    if (s.kind == syntax::StmtKind::for_) {
      const Expr& it = *s.value;
      if (!is_call_to(it, "range") && !scan(it)) controller(s.span, "it loops over a dataset");
    }
    if (s.kind == syntax::StmtKind::assign)
      for (const auto& t : s.targets)
        if (t->kind == ExprKind::member) fn.device_work.push_back(t->span);
    for (const auto& t : s.targets) expr(t.get());
    expr(s.value.get());
    block(s.body);
    block(s.else_body);
  }
};

}  // namespace

void Checker::place_functions() {
  for (auto& [name, fn] : fns_) {
    if (fn.item->is_extern) continue;
    Scan scan{fns_, models_, fn};
    scan.block(fn.item->body);
    scan.expr(fn.item->expr_body.get());
  }
  // No recursion: every call graph is a tree of calls that ends.
  std::map<std::string, int> state;  // 0 unvisited, 1 on the path, 2 done
  std::function<bool(const std::string&)> visit = [&](const std::string& name) {
    state[name] = 1;
    for (const auto& callee : fns_.at(name).callees) {
      if (state[callee] == 1) {
        const FnInfo& fn = fns_.at(name);
        r_.error(Code::E0906, fn.item->name_span,
                 callee == name ? "`" + name + "` calls itself"
                                : "`" + name + "` and `" + callee + "` call each other",
                 "recursion")
            .help =
            "shapescript has no recursion; write the repetition as a loop (`for i in range(k)`)";
        return false;
      }
      if (state[callee] == 0 && !visit(callee)) return false;
    }
    state[name] = 2;
    return true;
  };
  for (const auto& [name, fn] : fns_)
    if (state[name] == 0) visit(name);

  // A function that calls a controller function runs in the controller too.
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto& [name, fn] : fns_) {
      if (fn.controller || fn.item->is_extern) continue;
      for (const auto& callee : fn.callees) {
        const FnInfo& c = fns_.at(callee);
        if (c.controller && !c.item->is_extern) {
          fn.controller = true;
          fn.controller_reason = fn.item->name_span;
          fn.controller_why = "it calls `" + callee + "`, which runs in the controller";
          changed = true;
          break;
        }
      }
    }
  }
}

}  // namespace ss::check
