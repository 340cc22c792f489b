// The checker's state, shared by its files:
//   declarations.cpp  items: dims, devices, records, models, signatures
//   placement.cpp     which functions run in the controller (section 6)
//   statements.cpp    function bodies: bindings, loops, returns
//   expressions.cpp   names, members, indexing, literals, user calls
//   operators.cpp     operators with broadcasting, `@`
//   builtins.cpp      the built-in calls' dispatch, and their axes' helpers
//   builtin_table.cpp  each built-in's rule, by name
//   builtins_tensor.cpp  the tensor built-ins' rules
//   patterns.cpp      einops patterns: rearrange, reduce, repeat, einsum
//   several_devices.cpp  chapter 18: the batch axis split across devices
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "check/checker.hpp"
#include "types/types.hpp"

namespace ss::check {

// Every built-in function's name (calls, constructors, the program's world).
const std::set<std::string>& builtin_names();

using diag::Span;
using syntax::Expr;
using syntax::ExprKind;
using syntax::Stmt;
using syntax::TypeExpr;
using Code = diag::Code;

struct DimInfo {
  std::optional<std::int64_t> value;
  Span span;
};

struct Field {
  std::string name;
  Type type;
  Span span;
};

struct RecordInfo {
  const syntax::DataItem* item = nullptr;
  std::vector<Field> fields;
  const Field* field(const std::string& name) const;
};

struct Member {
  std::string name;
  Type type;  // a tensor for a param, a model for a sub-model
  bool is_param = false;
  Span span;
};

struct ModelInfo {
  const syntax::ModelItem* item = nullptr;
  std::vector<Member> members;
  // A generic model's instance (`Linear[D, 4*D]`): the model it instantiates
  // and its dims; members are the base's, its dims substituted.
  std::string base;
  std::vector<Axis> args;
  bool filled = false;
  // A stack (`[L] Block`, named so): members "0" up, each of the element
  // model; no item of its own.
  bool stack = false;
  const Member* member(const std::string& name) const;
};

// Something a function does along an axis that several devices can't do
// when that axis is the batch axis (chapter 18); judged once the batch axes
// are known.
struct BatchEvent {
  enum class Kind {
    no_lowering,  // E1801: a reduction, softmax, sort, index, causal along the axis
    grouped,      // E1802: grouped with another axis in a pattern
    twice,        // E1802: a value with the axis twice
    as_number,    // E1802: the axis's size used as a number
    to_any,       // E1802: passed to an extern fn's `tensor` parameter
  };
  Kind kind;
  std::string axis;  // the generic (or fresh batch) axis's name
  Span span;
  std::string what;  // "max", "softmax", "indexing", ...
};

// A call of a user function, for the several-device analysis.
struct CallSite {
  const Expr* expr = nullptr;
  std::string callee;
  Span span;
  std::vector<Span> arg_spans;
  // callee generic -> the caller's axis it was bound to at this call
  std::map<std::string, Axis> bindings;
  // per argument: the caller's generic names that appear in its type
  std::vector<std::set<std::string>> arg_axes;
};

// What lowering keeps (FunctionInfo: the signature, generics, placement),
// and what only the checker needs.
struct FnInfo : FunctionInfo {
  // placement
  Span controller_reason;  // what made it a controller function
  std::string controller_why;
  std::vector<Span> device_work;
  std::set<std::string> callees;
  // several devices (batch_axes is in FunctionInfo)
  std::vector<CallSite> calls;
  std::vector<BatchEvent> events;
};

struct Var {
  Type type;
  Span span;
  bool is_param = false;
  bool is_mut = false;
};

// Whether `e` calls the built-in or function `name`: `range(...)`, `slices(...)`.
inline bool is_call_to(const Expr& e, const char* name) {
  return e.kind == ExprKind::call && e.items[0]->kind == ExprKind::name && e.items[0]->text == name;
}

// The items of a list written `[a b]`, or the one expression (`over=C`,
// `stride=2`, `out=[H2 W2]`).
inline std::vector<const Expr*> listed(const Expr& e) {
  std::vector<const Expr*> items;
  if (e.kind == syntax::ExprKind::list)
    for (const auto& item : e.items) items.push_back(item.get());
  else
    items.push_back(&e);
  return items;
}

struct FnCtx {
  FnInfo* fn = nullptr;
  std::map<std::string, Var> vars;
  int loops = 0;
  int fresh = 0;  // counter for fresh batch axes
  bool returned = false;
};

class Checker {
 public:
  Checker(const syntax::Program& program, diag::Reporter& reporter) : p_(program), r_(reporter) {}
  TypedProgram run();

  // declarations.cpp
  void declare_items();
  void declare_devices();
  void declare_dims();
  void declare_records();
  void declare_models();
  void declare_functions();
  Type resolve_type(const TypeExpr& t, std::set<std::string>* generics, bool allow_generic,
                    bool allow_any_tensor = false);
  std::optional<Axis> resolve_axis(const syntax::AxisExpr& a, std::set<std::string>* generics,
                                   bool allow_generic);
  // dim_expressions.cpp: dims from dims. A dim's axis (its alias's when it
  // is one); an axis expression as a tree, aliases substituted; the tree as
  // an axis (a product's factors, each sum or quotient one derived factor).
  std::optional<Axis> dim_axis(const std::string& name) const;
  std::optional<types::DimExpr> declared_dim(const std::string& name) const;  // alias's, or named
  std::optional<types::DimExpr> dim_tree(const syntax::AxisExpr& a,
                                         std::set<std::string>& generic_names,
                                         std::set<std::string>* generics, bool allow_generic);
  std::optional<Axis> axis_of(const types::DimExpr& tree, Span span,
                              const std::set<std::string>& generic_names);
  std::optional<Factor> derived_factor(const types::DimExpr& e, Span span,
                                       const std::set<std::string>& generic_names);
  // E0409: `what` (a dim or an axis) passes 2^63 - 1, at `how` (the sum or
  // product that does; empty where `what` shows it).
  void report_overflow(const std::string& what, const std::string& how, Span span);
  bool unique_item_name(const std::string& name, Span span);
  // generic_models.cpp: `Linear[D, 4*D]` as a model type, its instance made
  // (members the base's, substituted) once the declared models are resolved.
  Type model_type(const TypeExpr& t, std::set<std::string>* generics, bool allow_generic);
  Type instance(const std::string& base, std::vector<Axis> args);
  // `Mlp(seed=0)` or `Linear[D, 4](seed=0)`: one dim per declared one, then `seed=`.
  Type model_constructor(const Expr& e, const std::string& base,
                         const std::vector<const Expr*>& dims, const std::vector<Type>& args,
                         const std::vector<Span>& spans, FnCtx& ctx);
  void fill_instance(const std::string& name);
  void fill_instances();

  // stacks.cpp: `[L] Block` as a model of L members, `m.blocks[2]`,
  // `slices(x, over=T)`, and the scans over either.
  Type stack_type(const TypeExpr& t, std::set<std::string>* generics, bool allow_generic);
  const ModelInfo* stack_of(const Type& t) const;  // null unless a stack
  Type stack_index(const Expr& e, const ModelInfo& stack, FnCtx& ctx);
  Type slices_call(const Expr& e, std::vector<Type>& args, std::vector<Span>& spans, FnCtx& ctx);
  void check_scan(const Stmt& s, const Type& over, FnCtx& ctx);

  // placement.cpp
  void place_functions();

  // statements.cpp
  void check_function(FnInfo& fn);
  void check_block(const std::vector<Stmt>& body, FnCtx& ctx);
  void check_stmt(const Stmt& s, FnCtx& ctx);
  void check_assign(const Stmt& s, FnCtx& ctx);
  void check_return(const Expr* value, Span span, FnCtx& ctx);
  void bind(FnCtx& ctx, const Expr& target, const Type& type);

  // expressions.cpp (operators.cpp: the operators, broadcast, unify_elems)
  // Checks an expression and records its type in typed_.
  Type expr(const Expr& e, FnCtx& ctx, const Type* expected = nullptr);
  Type expr_kind(const Expr& e, FnCtx& ctx, const Type* expected);
  Type name_expr(const Expr& e, FnCtx& ctx);
  Type unary_expr(const Expr& e, FnCtx& ctx);
  Type binary_expr(const Expr& e, FnCtx& ctx);
  Type arithmetic(const Expr& e, const std::string& op, const Type& l, const Type& r, Span ls,
                  Span rs);
  Type matmul(Span span, const Type& l, const Type& r, Span ls, Span rs, FnCtx& ctx);
  Type member_expr(const Expr& e, FnCtx& ctx);
  Type index_expr(const Expr& e, FnCtx& ctx);
  Type list_expr(const Expr& e, FnCtx& ctx);
  Type call_expr(const Expr& e, FnCtx& ctx, const Type* piped, Span piped_span,
                 const Type* expected);
  Type user_call(const Expr& e, FnInfo& callee, std::vector<Type> args, std::vector<Span> spans,
                 FnCtx& ctx, bool check_mut = true);
  std::optional<std::vector<Axis>> broadcast(const std::vector<Axis>& a, const std::vector<Axis>& b,
                                             Span span, Span ls, Span rs, const char* what);
  bool axes_match(const Axis& a, const Axis& b) const;
  // The size when every factor has one (nullopt past 2^63 - 1 too).
  std::optional<std::int64_t> static_size(const Axis& a) const;
  bool sized_factors(const Axis& a) const;  // every factor a literal or a sized dim
  std::optional<Elem> unify_elems(const Elem& a, const Elem& b, Span span, const std::string& op);
  bool assignable(const Type& to, const Type& from) const;
  Type as_tensor(const Type& t) const;  // ints and floats as weak scalars; else unchanged
  void note_axes(const Type& t, Span span, FnCtx& ctx);  // BatchEvent::twice

  // builtins.cpp: a built-in's call, dispatched by name through
  // builtin_rules() (builtin_table.cpp) to its rule.
  struct BuiltinCall {
    const std::string& name;
    const Expr& e;
    std::vector<Type>& args;
    std::vector<Span>& spans;
    FnCtx& ctx;
    const Type* expected;
  };
  using BuiltinRule = Type (Checker::*)(BuiltinCall&);
  static const std::map<std::string, BuiltinRule>& builtin_rules();
  bool is_builtin(const std::string& name) const;
  Type builtin_call(const std::string& name, const Expr& e, std::vector<Type>& args,
                    std::vector<Span>& spans, FnCtx& ctx, const Type* expected);
  // The call's argument i as a tensor (a number as a weak scalar), or of
  // floats; E0505 or E0503 otherwise. E0901 unless lo <= arguments <= hi.
  std::optional<Type> tensor_arg(BuiltinCall& c, std::size_t i, const char* what);
  std::optional<Type> float_arg(BuiltinCall& c, std::size_t i);
  bool count(BuiltinCall& c, std::size_t lo, std::size_t hi);
  // The rules (builtins_tensor.cpp; the others forward to their files).
  Type unary_function_call(BuiltinCall& c);
  Type cast_call(BuiltinCall& c);
  Type dropout_call(BuiltinCall& c);
  Type elementwise_call(BuiltinCall& c);
  Type binary_function_call(BuiltinCall& c);
  Type clip_call(BuiltinCall& c);
  Type reduction_call(BuiltinCall& c);
  Type along_axis_call(BuiltinCall& c);
  Type cross_entropy_call(BuiltinCall& c);
  Type causal_call(BuiltinCall& c);
  Type matmul_call(BuiltinCall& c);
  Type join_call(BuiltinCall& c);
  Type pad_call(BuiltinCall& c);
  Type pattern_rule(BuiltinCall& c);
  Type window_rule(BuiltinCall& c);
  Type slices_rule(BuiltinCall& c);
  Type program_rule(BuiltinCall& c);
  std::optional<std::vector<std::size_t>> over_axes(const Expr* over, const Type& x, Span call_span,
                                                    FnCtx& ctx, bool required_single);
  std::optional<Axis> axis_from_name(const Expr& e, FnCtx& ctx);
  std::optional<types::DimExpr> axis_tree(const Expr& e, FnCtx& ctx,
                                          std::set<std::string>& generic_names);
  const syntax::KwArg* kwarg(const Expr& e, const std::string& name) const;
  // E0901 unless lo <= given <= hi.
  bool arg_count(const std::string& name, const Expr& e, std::size_t given, std::size_t lo,
                 std::size_t hi);
  void check_kwargs(const Expr& e, std::initializer_list<const char*> allowed,
                    const std::string& fn);
  void no_lowering(FnCtx& ctx, const Axis& axis, Span span, const std::string& what);
  std::optional<std::vector<Axis>> shape_from_expr(const Expr& e, FnCtx& ctx);
  Type program_builtin(const std::string& name, const Expr& e, std::vector<Type>& args,
                       std::vector<Span>& spans, FnCtx& ctx, const Type* expected);
  Axis fresh_batch_axis(FnCtx& ctx);

  // windows.cpp: conv, max_pool, avg_pool
  Type window_call(const std::string& name, const Expr& e, std::vector<Type>& args,
                   std::vector<Span>& spans, FnCtx& ctx);
  std::optional<std::vector<std::int64_t>> window_setting(const Expr& e, const char* name,
                                                          std::size_t n,
                                                          std::vector<std::int64_t> fallback,
                                                          std::int64_t least);

  // patterns.cpp
  Type pattern_call(const std::string& name, const Expr& e, std::vector<Type>& args,
                    std::vector<Span>& spans, FnCtx& ctx);
  // A split `(a b)`'s parts with sizes: their product (nullopt where one has
  // no static size), false after E0409 where it passes 2^63 - 1; with every
  // part sized, whether they make the axis (E0708 where they don't).
  bool split_parts_size(const syntax::PatternAtom& atom,
                        const std::vector<std::optional<Axis>>& parts,
                        std::optional<std::int64_t>& size);
  bool split_fits(const Axis& axis, const syntax::PatternAtom& atom,
                  const std::vector<std::optional<Axis>>& parts);

  // several_devices.cpp
  void several_device_rules();

  // shared state
  TypedProgram typed_;  // what the checker records for lowering
  // The `for` line's iterable being checked, the one place `slices(...)`
  // may be called (E1512 elsewhere).
  const Expr* scan_iterable_ = nullptr;
  const syntax::Program& p_;
  diag::Reporter& r_;
  int device_count_ = 1;
  int world_ = 0;  // check_program's `world`
  std::string device_kind_ = "cpu";
  std::vector<std::int64_t> device_indices_;
  std::map<std::string, DimInfo> dims_;  // declared dims, aliases and derived factors
  struct DimAlias {
    types::DimExpr expr;
    Axis axis;
  };
  std::map<std::string, DimAlias> dim_aliases_;  // `dim F = H4 * W4 * C2`
  // While a generic model's members resolve: its dims (`model Linear[I, O]`).
  std::set<std::string> local_dims_;
  bool models_resolved_ = false;  // every declared model's members are known
  int fill_depth_ = 0;            // instances being filled, one inside another
  std::map<std::string, RecordInfo> records_;
  std::map<std::string, ModelInfo> models_;
  std::map<std::string, FnInfo> fns_;
  std::map<std::string, Span> sinks_;
  std::map<std::string, Span> item_names_;
};

}  // namespace ss::check
