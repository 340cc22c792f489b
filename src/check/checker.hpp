// The static checker: names, types, shapes, placement and the several-device
// rules, run on a parsed program. Every mistake is a coded diagnostic; what
// it learnt about a clean program is kept for lowering.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "diag/reporter.hpp"
#include "syntax/ast.hpp"
#include "types/dim_expr.hpp"
#include "types/types.hpp"
#include "types/window_size.hpp"

namespace ss::check {

// The checker's types live in src/types, below it and the IR.
using types::axes_str;
using types::Axis;
using types::Elem;
using types::ElemKind;
using types::Factor;
using types::substitute;
using types::Type;

struct FunctionInfo {
  const syntax::FnItem* item = nullptr;
  std::vector<Type> params;
  Type ret;
  bool has_ret = false;
  std::set<std::string> generics;
  bool controller = false;
  // With several devices, the generic axes that are batch axes (split
  // across the devices): a `[b] Record` parameter's, a value's from
  // `batches`/`whole`, and those a call-graph fixpoint carries them to.
  std::set<std::string> batch_axes;
};

struct MemberInfo {
  std::string name;
  Type type;  // a tensor (a parameter) or a model (a sub-model)
  bool is_param = false;
  const syntax::Expr* init = nullptr;  // a parameter's initialiser: `zeros`, `normal(std=0.1)`
};

// How an einops call maps axes, by name: each input's axes as groups of
// names (one name, several for a split, none for a `1`), the output's groups,
// every name's axis (an opaque one when only the input's size tells), and
// reduce's operation.
struct PatternPlan {
  std::vector<std::vector<std::vector<std::string>>> inputs;
  std::vector<std::vector<std::string>> output;
  std::map<std::string, Axis> sizes;
  std::string op;  // reduce: sum, mean, max or min
};

// A conv, max_pool or avg_pool call: the windowed positions of x and each
// one's window. Sizes are axes (a kernel's, or literals), known by
// lowering, when every dim is sized.
struct WindowPlan {
  enum class Kind { conv, max_pool, avg_pool };
  Kind kind = Kind::conv;
  std::vector<std::size_t> over;
  std::vector<Axis> size;
  std::vector<std::int64_t> stride, dilation, before, after;
  bool same = false;  // padding=same: before and after from the size (the odd one after)
  std::int64_t groups = 1;
};

// The checked program, keyed by the syntax tree's nodes (which it outlives
// only as long as the tree does).
struct TypedProgram {
  int device_count = 1;  // from the `devices` line; 1 when there is none
  std::string device_kind = "cpu";
  std::vector<std::int64_t> device_indices;  // `cuda[0 1]`: 0 and 1; empty without brackets
  std::map<std::string, std::optional<std::int64_t>> dims;
  // Dims from dims, in the order they are sized (a `dim` line's alias, a
  // derived factor's canonical text; both also in `dims`).
  std::vector<types::DerivedDim> derived_dims;
  std::map<std::string, std::vector<MemberInfo>> models;
  std::map<std::string, std::vector<std::pair<std::string, Type>>> records;
  std::map<std::string, FunctionInfo> functions;
  std::map<std::string, diag::Span> sinks;  // by name, at their declarations
  // Every expression's type, as the function that holds it sees it, by the
  // expression's id.
  std::vector<Type> types;
  const Type& type_of(const syntax::Expr& e) const { return types.at(e.id); }
  // The axis positions an operation works on: `over=` of a reduction,
  // softmax, cross_entropy, concat, pad or slices (calls), the axis an index
  // names (keyword values of an index expression), the layer a stack's
  // index picks (`m.blocks[-1]`: the index expression, its layer from 0).
  std::unordered_map<const syntax::Expr*, std::vector<std::size_t>> axes;
  // A call of the program's own function: its generic axes, bound to the
  // caller's axes.
  std::unordered_map<const syntax::Expr*, std::map<std::string, Axis>> bindings;
  // rearrange, reduce, repeat and einsum calls.
  std::unordered_map<const syntax::Expr*, PatternPlan> patterns;
  // Each stack's count of layers as written (`L`), by the stack's model's
  // name ("[L] Block"), a model (in `models`) whose members are "0" up.
  std::map<std::string, Axis> stacks;
  // conv, max_pool and avg_pool calls.
  std::unordered_map<const syntax::Expr*, WindowPlan> windows;
  // Output sizes that need dims a host sizes at load.
  std::vector<types::WindowCheck> window_checks;
};

// `world`: the devices the program runs on when a host's communicator spans
// more than its `devices` line names (a node's one GPU in a multi-node job);
// chapter 18's rules hold for that many. 0: the line's count.
TypedProgram check_program(const syntax::Program& program, diag::Reporter& reporter, int world = 0);

}  // namespace ss::check
