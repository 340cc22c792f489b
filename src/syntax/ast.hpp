// The syntax tree of one program, as the parser builds it: spans on every
// node, no types yet (the checker adds those beside it).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diag/source_map.hpp"

namespace ss::syntax {

using diag::SourceMap;  // spans live in diag, below every stage that reports
using diag::Span;

// An axis in a type: `D`, `b`, `3`, a product `b*D`, or an expression of
// dims (`H-K+1`, `C/2`, `(H+1)//2`); a dim line's expression too.
struct AxisExpr {
  enum class Kind { name, literal, add, sub, mul, div, floordiv };
  Kind kind = Kind::literal;
  Span span;
  std::string name;             // name
  std::int64_t value = 0;       // literal
  std::vector<AxisExpr> items;  // an operation's two operands
};

struct TypeExpr {
  enum class Kind { tensor, named, tuple };
  Kind kind = Kind::tensor;
  Span span;
  // tensor: `[axes] elem`; elem empty means f32; `Index[C]` sets index_of.
  std::vector<AxisExpr> axes;
  std::string elem;
  Span elem_span;
  std::optional<AxisExpr> index_of;
  // named: `Mlp`, `AdamW[Mlp]`, `Dataset[Digit]`, `int`, `tensor`; tuple: elements;
  // tensor: a stack's generic model's (`[L] Linear[D, D]`).
  std::string name;
  std::vector<TypeExpr> args;
  // named: each bracketed argument as an axis too, where it reads as one
  // (`Linear[D, 4*D]`, a generic model's dims); a plain name is in both.
  std::vector<std::optional<AxisExpr>> axis_args;
};

// An einops pattern's atom: a name, a literal `1`, or a parenthesised group.
struct PatternAtom {
  Span span;
  bool group = false;
  std::vector<std::string> names;  // one for a plain name, several for a group
  std::vector<Span> name_spans;
  bool unit = false;  // a literal 1 (or `()`): an axis of size 1
};

struct PatternGroup {
  Span span;
  std::vector<PatternAtom> atoms;
};

enum class ExprKind {
  name,
  integer,
  floating,
  string,
  fstring,
  boolean,
  unary,   // text: "-", "+", "not"
  binary,  // text: the operator, "|>" for pipes
  call,    // items[0]: the callee; items[1..]: positional arguments
  member,  // items[0].text
  index,   // items[0][items[1..], kwargs]
  slice,   // items: [start or null, end or null]
  tuple,
  list,     // text "shape" when written without commas: `[D C]`
  mut,      // `mut x` as an argument
  pattern,  // einops: groups (inputs) -> output
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct KwArg {
  std::string name;
  Span name_span;
  ExprPtr value;
};

struct FStringPart {
  std::string text;  // literal text before the expression
  ExprPtr expr;      // null for the trailing text
  std::string spec;  // after `:` in `{x:.4f}`
};

struct Expr {
  ExprKind kind = ExprKind::name;
  Span span;
  // Numbered by the checker, 1 up, to index what it records per expression
  // (TypedProgram::types) without hashing; 0 before.
  mutable std::uint32_t id = 0;
  std::string text;
  std::int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::vector<ExprPtr> items;
  std::vector<KwArg> kwargs;
  std::vector<PatternGroup> groups;
  std::optional<PatternGroup> output;
  std::vector<FStringPart> parts;
};

enum class StmtKind { expr, assign, return_, for_, if_, break_ };

struct Stmt {
  StmtKind kind = StmtKind::expr;
  Span span;
  std::vector<ExprPtr> targets;        // assign: names, `m.w`, or several for a tuple
  std::optional<TypeExpr> annotation;  // `x: T = e`
  ExprPtr value;  // assign's value, return's (may be null), the loop's, the condition
  std::string loop_var;
  Span loop_var_span;
  std::vector<Stmt> body;
  std::vector<Stmt> else_body;
  bool has_else = false;
};

struct DimItem {
  std::string name;
  Span span, name_span;
  std::optional<std::int64_t> value;  // `dim D = 64`
  Span value_span;
  std::optional<AxisExpr> expr;  // `dim H1 = H - K + 1`: a dim from dims
};

struct DevicesItem {
  Span span;
  std::string kind;  // "cpu" or "cuda"
  Span kind_span;
  bool indexed = false;  // `cuda[0 1]` rather than `cpu`
  std::vector<std::int64_t> indices;
  std::vector<Span> index_spans;
};

struct FieldDecl {
  std::string name;
  Span name_span;
  TypeExpr type;
};

struct DataItem {
  std::string name;
  Span span, name_span;
  std::vector<FieldDecl> fields;
};

// `param w: [D C] = normal(std=0.1)`, or a sub-model `enc: Encoder`.
struct MemberDecl {
  std::string name;
  Span span, name_span;
  bool is_param = false;
  TypeExpr type;
  ExprPtr init;
};

struct ModelItem {
  std::string name;
  Span span, name_span;
  // `model Linear[I, O]`: the dims it is generic in, local to it.
  std::vector<std::string> dims;
  std::vector<Span> dim_spans;
  std::vector<MemberDecl> members;
};

struct FnParam {
  std::string name;
  Span span, name_span;
  bool is_mut = false;
  Span mut_span;
  TypeExpr type;
};

struct FnItem {
  std::string name;
  Span span, name_span;
  bool is_extern = false;
  std::vector<FnParam> params;
  std::optional<TypeExpr> ret;
  std::vector<Stmt> body;  // a block body
  ExprPtr expr_body;       // `= expr`
};

struct SinkItem {
  std::string name;
  Span span, name_span;
};

struct Program {
  std::vector<DimItem> dims;
  std::vector<DevicesItem> devices;  // more than one is an error the checker reports
  std::vector<DataItem> data;
  std::vector<ModelItem> models;
  std::vector<FnItem> fns;
  std::vector<SinkItem> sinks;
};

}  // namespace ss::syntax
