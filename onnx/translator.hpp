// An ONNX graph translated into shapescript source: one statement per node
// (a comment naming it), shape subgraphs folded into constants, float
// initializers made the parameters of `model Onnx`. Ops are translated by
// the handlers of ops_*.cpp, found by op type in one table (op_table.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "onnx/tensors.hpp"

namespace ss::onnx_import {

// One ONNX value as the program holds it: a shapescript expression (a
// variable's name) of a known shape and element type, or a constant folded
// at import, or both.
// How a value was made from another by a scalar factor and a swap of its
// last two axes (PyTorch's attention scales q and k^T apart): a MatMul
// reads the other and scales its product instead, so its scores are
// scaled scores, which the library's attention finder knows.
struct Derived {
  std::string from;  // the other value's ONNX name
  double scale = 1;
  bool swapped = false;
};

struct Value {
  std::string expr;  // empty: only the constant stands for it
  std::vector<std::int64_t> shape;
  int onnx_type = 0;
  std::optional<Constant> constant;
  bool frozen = false;  // an initializer OnnxOptions::frozen names: written out, never a parameter
  // The program's layout of `expr`: its axis i is ONNX's axis perm[i]
  // (channels last inside a network); empty for ONNX's own order.
  std::vector<std::int64_t> perm;
  std::optional<Derived> derived;

  std::string dtype() const { return ss_dtype(onnx_type); }
  std::size_t rank() const { return shape.size(); }
  std::int64_t count() const;
};

// The graph inputs' symbolic axes: by input name, per axis, the dim's ONNX
// name ("" for a fixed axis), and each name's size.
struct Symbolic {
  std::map<std::string, std::vector<std::string>> axes;
  std::map<std::string, std::int64_t> sizes;
  // A generic translation: each symbolic dim stands in the graph as a size
  // no model has (a sentinel, a large prime), which the program's text
  // writes as the dim's generic axis; a use that can't stay generic (the
  // size as a value, an axis of it sliced or made a constant) refuses the
  // generic translation (ImportError::generic), and the import is made
  // for given sizes instead.
  bool generic = false;
  std::map<std::string, std::int64_t> sentinels;  // ONNX's name -> its sentinel size
  int stand_ins = 0;                              // which of open_axes.cpp's two sets of sentinels
  std::map<std::string, std::string> axis_names;  // ONNX's name -> the program's generic axis
};

struct Port {  // a graph input or output as forward takes or gives it
  std::string name, onnx_name, dtype;
  int onnx_type = 0;
  std::vector<std::int64_t> shape;  // -1 for a generic axis
  std::vector<std::string> axes;    // per axis, a generic axis's ONNX name ("" else)
};

class Translator {
 public:
  // `constants`: graph inputs the host gives at import (values as floats,
  // the element type the input's).
  Translator(const onnx::ModelProto& model, std::string folder, std::set<std::string> frozen,
             std::map<std::string, Constant> constants = {}, Symbolic symbolic = {});
  void run();

  const std::string& source() const { return source_; }
  const std::map<std::string, Constant>& params() const { return params_; }
  const std::vector<Port>& inputs() const { return inputs_; }
  const std::vector<Port>& outputs() const { return outputs_; }
  bool has_model() const { return !params_.empty(); }

  // For handlers. The node being translated:
  const onnx::NodeProto& node() const { return *node_; }
  // Its i-th input (null for a missing optional one), and its count.
  const Value* input(int i) const;
  const Value& need(int i) const;  // E2002 when missing
  int inputs_count() const { return node_->input_size(); }
  // Its attributes, with defaults.
  bool has(const std::string& name) const;
  std::int64_t int_attr(const std::string& name, std::int64_t fallback) const;
  float float_attr(const std::string& name, float fallback) const;
  std::string string_attr(const std::string& name, const std::string& fallback) const;
  std::vector<std::int64_t> ints_attr(const std::string& name) const;
  std::vector<float> floats_attr(const std::string& name) const;
  const onnx::AttributeProto* attr(const std::string& name) const;
  // The inferred shape and element type of its i-th output (E2007 when a
  // size isn't known at import).
  std::vector<std::int64_t> out_shape(int i = 0) const;
  int out_type(int i = 0) const;

  // Binds the i-th output to an expression: a statement `name = expr`.
  void emit(const std::string& expr, int i = 0);
  // Binds it with the shape and type given (not the inferred ones).
  void emit_as(const std::string& expr, std::vector<std::int64_t> shape, int onnx_type, int i = 0);
  // Binds it to a folded constant (no statement).
  void fold(Constant c, int i = 0);
  // An expression for a value: its variable, or its constant written out
  // (a literal when small and finite, else a parameter). In ONNX's axis
  // order, or, while the node follows a layout (elementwise ops on a
  // channels-last value), in that layout.
  std::string operand(const Value& v);
  // The value in ONNX's order, and in a layout (`perm` as Value::perm),
  // each made once per value.
  std::string onnx_operand(const Value& v);
  std::string in_layout(const Value& v, const std::vector<std::int64_t>& perm);
  // Binds output i to an expression in a layout (Value::perm).
  void emit_in_layout(const std::string& expr, const std::vector<std::int64_t>& perm, int i = 0);
  // A shape as the node's layout lays it out (the shape itself without one).
  std::vector<std::int64_t> physical_shape(const std::vector<std::int64_t>& shape) const;
  // A float constant as the parameter named after `onnx_name` (made on its
  // first use): a kernel permuted at import, say.
  // `layout` names a permutation of the initializer ("hwio", "t"): the
  // parameter is its own, named after both.
  std::string param_operand(const Constant& c, const std::string& onnx_name,
                            const std::string& layout = {});
  // The ONNX name a value is bound to, empty for none; the value an ONNX
  // name is bound to, null for none.
  std::string name_of(const Value& v) const;
  const Value* value_named(const std::string& onnx_name) const;
  // Records how output i (just emitted) was made from another value.
  void note_derived(Derived d, int i = 0);
  // A scalar literal of an element type: 2.0, 2, true. In a generic
  // translation a symbolic size written as a value refuses it.
  static std::string literal(double x, const std::string& dtype);
  // In a generic translation, whether a size is an open axis's stand-in
  // (the axis's size used as a value: a Range's limit, a Slice's end).
  static bool is_open_size(std::int64_t v);
  // Whether a shape has an axis of an open size (or a multiple of one).
  static bool has_open_axis(const std::vector<std::int64_t>& shape);
  // In a generic translation, refuses sizes that are a symbolic dim's.
  static void check_generic(const std::vector<std::int64_t>& shape, const char* what);
  // A fresh variable name for an intermediate.
  std::string temp();
  // A statement of an intermediate: binds and returns a fresh name.
  std::string let(const std::string& expr);
  // Rebinds a name already bound (a scan's carry): `name = expr`.
  void assign(const std::string& name, const std::string& expr);
  // A block of statements (a scan's body): `line` opens it, the statements
  // until end_block are indented into it.
  void begin_block(const std::string& line);
  void end_block();
  // A statement binding `name` with a declared type: `name: type = expr`.
  void let_typed(const std::string& name, const std::string& type, const std::string& expr);
  // A dim declared for slicing an axis of `size` (dims are declared once
  // each, at the top of the program).
  std::string slicing_dim(std::int64_t size);
  // The axis's text for gathering along it (a type and `Index[...]`): a
  // generic axis's, or a declared dim's.
  std::string gather_dim(std::int64_t size);
  // The type text of a shape and dtype: `[3 4] i32`.
  static std::string type_text(const std::vector<std::int64_t>& shape, const std::string& dtype);

  [[noreturn]] void unsupported(const std::string& code, const std::string& what,
                                const std::string& help = {}) const;

 private:
  void read_graph();
  void check_frozen_names() const;
  bool shape_known(const std::string& name) const;
  void refresh_inference();
  // A value bound with a shape ONNX inferred otherwise: what it inferred
  // for the values not yet bound is dropped, to be inferred again.
  void forget_inference_after(const std::string& name, const std::vector<std::int64_t>& shape);
  // An elementwise node computes in the layout of its first input that has
  // one (of the output's rank): its other inputs are brought to it.
  bool follow_layout();
  void translate_node(const onnx::NodeProto& n);
  std::string identifier(const std::string& onnx_name, const char* prefix);
  std::string param_for(const std::string& onnx_name, const Constant& c,
                        const std::string& layout = {});

  const onnx::ModelProto& model_;
  std::string folder_;
  std::set<std::string> frozen_;
  std::map<std::string, Constant> constants_;
  Symbolic symbolic_;
  std::vector<std::string> sized_;
  // A port's shape with its generic axes as -1, their names in `axes`.
  void mark_generic(Port& p) const;  // comments: the symbolic axes and their sizes
  std::map<std::string, Value> values_;
  std::map<std::string, onnx::ValueInfoProto> infos_;
  int node_index_ = 0;
  std::string indent_ = "    ";  // of the statements let() writes                           // of
                                 // the node being translated
  mutable std::set<std::string> refreshed_;      // outputs whose shape made inference run again
  std::map<std::string, Constant> params_;       // by parameter name
  std::map<std::string, std::string> param_of_;  // onnx name -> parameter name
  std::vector<Port> inputs_, outputs_;
  std::set<std::string> used_names_;
  std::map<std::int64_t, std::string> slicing_dims_;
  std::vector<std::string> body_, renames_;
  const onnx::NodeProto* node_ = nullptr;
  std::vector<std::int64_t> node_perm_, emit_perm_;
  std::map<std::string, std::string> layout_cache_;
  int temps_ = 0;
  std::string source_;
};

using Handler = void (*)(Translator&);
// Whether an op type computes element by element, so it may run in its
// inputs' layout (ops_elementwise.cpp lists them).
bool follows_layout(const std::string& op_type);
// The handler of an op type (of the default domain), or null.
Handler handler_for(const std::string& op_type);
// Every op type with a handler, sorted.
std::vector<std::string> supported_ops();

}  // namespace ss::onnx_import
