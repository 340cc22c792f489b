// The checker's types: tensors with named axes, element types, and the other
// values a program handles (records, batches, models, optimisers, datasets).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ss::types {

// One factor of an axis: a declared dim, a generic axis of the function, a
// literal size, or an opaque size the checker derived (a slice's length).
struct Factor {
  enum class Kind { dim, generic, literal, opaque };
  Kind kind = Kind::literal;
  std::string name;        // dim, generic, opaque
  std::int64_t value = 0;  // literal
  friend bool operator==(const Factor&, const Factor&) = default;
};

// An axis: the product of its factors, in order (`b*D` and `D*b` differ).
struct Axis {
  std::vector<Factor> factors;
  friend bool operator==(const Axis&, const Axis&) = default;

  static Axis dim(std::string name) { return {{{Factor::Kind::dim, std::move(name), 0}}}; }
  static Axis generic(std::string name) { return {{{Factor::Kind::generic, std::move(name), 0}}}; }
  static Axis literal(std::int64_t n) { return {{{Factor::Kind::literal, {}, n}}}; }
  static Axis opaque(std::string name) { return {{{Factor::Kind::opaque, std::move(name), 0}}}; }

  bool single() const { return factors.size() == 1; }
  bool is_literal(std::int64_t n) const {
    return single() && factors[0].kind == Factor::Kind::literal && factors[0].value == n;
  }
  bool has_generic(const std::string& name) const;
  std::string str() const;  // "D", "b*D", "3"
};

enum class ElemKind { f32, bf16, f16, i32, boolean, index };

struct Elem {
  ElemKind kind = ElemKind::f32;
  std::optional<Axis> index_of;  // Index[C]
  bool weak = false;             // from a literal: takes the type of the tensor it meets
  friend bool operator==(const Elem& a, const Elem& b) {
    return a.kind == b.kind && a.index_of == b.index_of;
  }
  bool is_float() const {
    return kind == ElemKind::f32 || kind == ElemKind::bf16 || kind == ElemKind::f16;
  }
  bool is_integer() const { return kind == ElemKind::i32 || kind == ElemKind::index; }
  std::string str() const;  // "f32", "Index[C]"
};

struct Type {
  enum class Kind {
    error,       // already reported: accepted everywhere, so one mistake gives one error
    tensor,      // axes + elem
    any_tensor,  // an extern fn's `tensor` parameter
    record,      // one example: name
    batch,       // `[b] Rec`: name + batch axis
    model,       // name
    optimizer,   // opt_kind[name]
    dataset,     // Dataset[name]
    batches,     // a dataset piped into `batches`/`take`/`shuffle`: iterates batches
    range,       // range(k): iterates ints
    integer,     // a controller or static integer (also a dim used as a number)
    floating,
    string,
    tuple,
    none,  // no value
    sink,
    shape,     // shape(x), for printing
    function,  // a user function named as a value (value_and_grad's first argument)
    slices,    // slices(x, over=T), a device loop's steps: axes + elem each, batch_axis T
  };
  Kind kind = Kind::none;
  std::vector<Axis> axes;
  Elem elem;
  std::string name;      // record, batch, model, dataset, optimizer's model, function
  std::string opt_kind;  // SGD, Adam, AdamW
  Axis batch_axis;       // batch; and for batches: the fresh axis its batches carry; slices: T
  std::vector<Type> items;
  bool static_value = false;  // integer/bool known at compile time (a literal, a dim)

  static Type error() { return Type{Kind::error}; }
  static Type none() { return Type{}; }
  static Type tensor(std::vector<Axis> axes, Elem elem = {}) {
    Type t;
    t.kind = Kind::tensor;
    t.axes = std::move(axes);
    t.elem = std::move(elem);
    return t;
  }
  static Type scalar(ElemKind kind = ElemKind::f32) { return tensor({}, Elem{kind, {}, false}); }
  static Type of(Kind kind, std::string name = {}) {
    Type t;
    t.kind = kind;
    t.name = std::move(name);
    return t;
  }

  bool is(Kind k) const { return kind == k; }
  bool is_error() const { return kind == Kind::error; }
  bool is_tensor() const { return kind == Kind::tensor; }
  bool is_scalar_number() const { return kind == Kind::integer || kind == Kind::floating; }
  // One number: an int, a float or a tensor without axes (what `write` and
  // an f-string's format take).
  bool is_one_number() const { return is_scalar_number() || (is_tensor() && axes.empty()); }
  std::string str() const;  // "[b D]", "[] Index[C]", "[b] Digit", "AdamW[Mlp]"
};

std::string axes_str(const std::vector<Axis>& axes);  // "[b D]"

// An axis's size from the dims' sizes, when it has no generic or opaque
// factor and every dim it names is sized; nullopt otherwise, and where the
// product passes 2^63 - 1.
std::optional<std::int64_t> static_size(
    const Axis& axis, const std::map<std::string, std::optional<std::int64_t>>& dims);

// A generic model's instance, named as the source writes it: "Linear[D, 4*D]";
// and the model it instantiates ("Linear"), a plain model's (and a stack's,
// "[L] Block") own name.
std::string instance_name(const std::string& base, const std::vector<Axis>& args);
std::string model_base(const std::string& name);

// Replaces generic axes by what they are bound to (a call's bindings, an
// inlined function's): `b*D` with b = n*T is `n*T*D`.
Axis substitute(const Axis& a, const std::map<std::string, Axis>& bindings);
Type substitute(Type t, const std::map<std::string, Axis>& bindings);

}  // namespace ss::types
