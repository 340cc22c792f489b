// ONNX models loaded at run time (docs/onnx.md): a model is translated to
// shapescript source plus its initializers, then loaded as any program is:
// checked at load, run by any executor, trainable. The importer lives in
// libshapescript_onnx, opened at run time: without it, importing is E2001.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "shapescript/diagnostic.hpp"
#include "shapescript/export.hpp"
#include "shapescript/module.hpp"
#include "shapescript/tensor.hpp"
#include "shapescript/value.hpp"

namespace ss {

struct OnnxOptions {
  // Shapescript appended to the generated program, which sees `Onnx` and
  // `forward`: a loss, a training step, a `devices` line.
  std::string extra_source;
  // Float initializers imported as constants of the program rather than
  // parameters of `model Onnx` (so training leaves them as they are).
  std::vector<std::string> frozen;
  // Graph inputs whose values the host knows at load (a Reshape's shape, a
  // Slice's bounds, TopK's k given as inputs): folded into the program as
  // constants, so `forward` doesn't take them. int32 tensors stand for
  // int64 inputs.
  std::map<std::string, Tensor> constants;
  // An input's open axis (a `dim_param`, or one open without a name, which
  // is named INPUT_axisK) becomes a generic axis of the program, any size
  // at every call, where the translation can keep it so and no size is
  // given here. Sizes given, by ONNX's names ({"batch_size", 8}), make the
  // import for them, the first and only attempt (ONNX's shape inference
  // then sees real sizes); another size is another import, and an open
  // axis left unsized is E2007.
  std::map<std::string, std::int64_t> dims;
  // The inputs' shapes, by the graph's input names, as the host will give
  // them: they size every open axis of those inputs, as `dims` does (the
  // CLI gives the shapes of `--inputs`). E2008 where they disagree with the
  // model's declared sizes or with `dims`; a name that isn't an input of
  // the graph is passed over (a file of tensors may hold more), and an
  // axis it would have sized is left unsized (E2007).
  std::map<std::string, std::vector<std::int64_t>> input_shapes;
  // How the generated program is loaded (dims, sinks, files...).
  LoadOptions load;
  // The importer's path. Empty: SHAPESCRIPT_ONNX, else beside libshapescript.
  std::string library;
};

// A graph input or output as `forward` takes or gives it.
struct OnnxPort {
  std::string name;       // in the program (an identifier)
  std::string onnx_name;  // in the graph
  DType dtype = DType::f32;
  bool int64 = false;               // an ONNX int64, i32 inside
  std::vector<std::int64_t> shape;  // -1 for a generic axis
  std::vector<std::string> axes;    // per axis, the ONNX name of a generic one ("" else)
};

// The translation alone (`shapescript import`).
struct OnnxTranslation {
  std::string source;      // the program
  std::string weights;     // the parameters' values, safetensors bytes (empty: no parameters)
  bool has_model = false;  // false when the graph leaves no float initializer: forward takes no `m`
  // Whether the graph's symbolic dims are the program's generic axes (any
  // size at every call); else why not (the import then made for the sizes
  // OnnxOptions::dims gives).
  bool generic = false;
  std::string not_generic;
  std::vector<OnnxPort> inputs, outputs;
  std::vector<Diagnostic> diagnostics;
  explicit operator bool() const { return !has_errors(diagnostics); }
};

// An imported model, loaded: call `forward` with `weights` (when the model
// has parameters) and tensors for the inputs.
struct SS_API OnnxModel {
  Module module;
  Value weights;  // the `Onnx` model value; empty when it has no parameters
  OnnxTranslation translation;
  std::vector<Diagnostic> diagnostics;
  explicit operator bool() const { return !has_errors(diagnostics) && static_cast<bool>(module); }
  // forward's arguments: weights (when there are any), then the inputs in order.
  std::vector<Arg> arguments(const std::vector<Tensor>& inputs) const;
  // A call of forward's results, one tensor per graph output, in its order.
  static std::vector<Tensor> results(const CallResult& result);
};

// A serialized ONNX TensorProto (a backend test's input_0.pb) as a tensor:
// int64 narrowed to i32 (E2010 out of range), float64 and the types
// shapescript lacks refused (E2006). *name gets its name when given.
SS_API bool read_onnx_tensor(std::string_view bytes, Tensor* out, std::string* name,
                             std::vector<Diagnostic>* errors, const std::string& library = {});

// The ONNX op types the importer translates (docs/onnx.md), sorted; empty
// with *errors (E2001) when the importer isn't there.
SS_API std::vector<std::string> onnx_supported_ops(std::vector<Diagnostic>* errors = nullptr,
                                                   const std::string& library = {});

// Named tensors in a safetensors file (`shapescript run model.onnx
// --inputs`): read (E1408 when it can't be) and written (E1706).
SS_API bool read_tensor_file(const std::string& path, std::map<std::string, Tensor>* out,
                             std::vector<Diagnostic>* errors);
// Tensors named in `as_int64` (i32, an ONNX model's int64 outputs) are
// written as I64, as the model's own type.
SS_API bool write_tensor_file(const std::string& path, const std::map<std::string, Tensor>& tensors,
                              std::vector<Diagnostic>* errors,
                              const std::vector<std::string>& as_int64 = {});

}  // namespace ss
