// The lowered program's outline: what the runtime needs of the checked
// program besides code, read once here so it never walks the syntax tree.
#include <stdexcept>

#include "lower/pipeline.hpp"

namespace ss::lower {
namespace {

using syntax::Expr;
using syntax::ExprKind;

// An initialiser's setting: the checker allows number literals only.
double literal(const Expr& e) {
  if (e.kind == ExprKind::integer) return static_cast<double>(e.int_value);
  if (e.kind == ExprKind::floating) return e.float_value;
  if (e.kind == ExprKind::unary && e.text == "-") return -literal(*e.items[0]);
  if (e.kind == ExprKind::unary && e.text == "+") return literal(*e.items[0]);
  throw std::logic_error("an initialiser's setting isn't a literal");
}

ir::Initialiser initialiser(const Expr& init) {
  ir::Initialiser out;
  out.kind = init.kind == ExprKind::call ? init.items[0]->text : init.text;
  for (const auto& arg : init.kwargs) out.settings[arg.name] = literal(*arg.value);
  return out;
}

}  // namespace

ir::Program program_outline(const check::TypedProgram& typed) {
  ir::Program p;
  p.device_count = typed.device_count;
  p.device_kind = typed.device_kind;
  p.device_indices = typed.device_indices;
  p.dims = typed.dims;
  p.records = typed.records;
  p.sinks = typed.sinks;
  for (const auto& [name, members] : typed.models) {
    auto& out = p.models[name];
    for (const auto& m : members)
      out.push_back({m.name, m.type, m.is_param,
                     m.is_param && m.init ? initialiser(*m.init) : ir::Initialiser{}});
  }
  for (const auto& [name, fn] : typed.functions) {
    ir::Signature s;
    for (std::size_t i = 0; i < fn.params.size(); ++i)
      s.params.push_back({fn.item->params[i].name, fn.params[i], fn.item->params[i].is_mut});
    s.ret = fn.ret;
    s.has_ret = fn.has_ret;
    s.controller = fn.controller;
    s.is_extern = fn.item->is_extern;
    p.functions.emplace(name, std::move(s));
  }
  return p;
}

}  // namespace ss::lower
