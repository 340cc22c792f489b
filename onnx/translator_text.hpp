// What the translator's files share (translator.cpp, translator_inference.cpp,
// translator_operands.cpp): the program text's names and forms, and the
// stand-in sizes of the generic translation running on this thread.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace ss::onnx_import::text {

// Names a program can't give a variable: the language's keywords and
// built-ins (and `m`, the model, and `forward`).
const std::set<std::string>& reserved_names();
// A name as a comment may show it (control characters escaped).
std::string printable(const std::string& name);
// An ONNX name made an identifier's letters.
std::string sanitize(const std::string& name);
bool is_identifier(const std::string& s);
// A float literal that reads back as the same double.
std::string float_text(double x);
// `x` with its axes permuted (axis i of the result is x's perm[i]).
std::string permuted_text(const std::string& x, const std::vector<std::int64_t>& perm);
// Leading axes of 1 added: `from` is `to` less them.
std::string reshape_text(const std::string& x, const std::vector<std::int64_t>& from,
                         const std::vector<std::int64_t>& to);

// The sentinels of the generic translation running on this thread (null
// otherwise), for the static helpers.
extern thread_local const std::map<std::string, std::int64_t>* g_sentinels;
// `v` as a product of symbolic dims' sentinels and a count: the program's
// text for it ("batch", "batch*10"), or "" when it isn't one.
std::string symbolic_text(std::int64_t v, const std::map<std::string, std::int64_t>& sentinels,
                          const std::map<std::string, std::string>& names);
bool is_symbolic(std::int64_t v);
// A value (a constant's element) whose magnitude is an open size or a multiple of one.
bool is_symbolic_value(double x);
// Whether ONNX's inferred shape agrees with a shape the translation bound.
bool same_shape(const onnx::ValueInfoProto& vi, const std::vector<std::int64_t>& shape);
// Refuses the generic translation (ImportError::generic).
[[noreturn]] void not_generic(const std::string& why);

}  // namespace ss::onnx_import::text
