// Whether a host's value fits what a program wants of it: a parameter's
// type at a call, or its own type after a hot reload.
#pragma once

#include <string>

#include "api/value_state.hpp"
#include "ir/program.hpp"

namespace ss::api {

// Why the value no longer has its type's layout in `program` (a model's
// parameters by path, shape and element type; an optimiser's settings and
// state; a batch's or dataset's fields), or "" when it fits. Tensors and
// numbers always fit: a call checks their shapes.
std::string layout_misfit(const ir::Program& program, const Value::State& state,
                          const runtime::Value& v);

// Why the value can't be given for a parameter of type `want`, or "".
// `layout_known`: the value's layout is known to fit the program (its
// kind and type are still checked).
std::string value_misfit(const ir::Program& program, const types::Type& want,
                         const Value::State& state, const runtime::Value& v,
                         bool layout_known = false);

// The type a value shows (Value::type()).
std::string value_type(const Value::State& state, const runtime::Value& v);

}  // namespace ss::api
