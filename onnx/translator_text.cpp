#include "onnx/translator_text.hpp"

#include <charconv>
#include <cmath>

#include "onnx/import_error.hpp"

namespace ss::onnx_import::text {

// Names a program can't give a variable: the language's keywords and
// built-ins (and `m`, the model, and `forward`).
const std::set<std::string>& reserved_names() {
  static const std::set<std::string> names = {
      "fn",        "return",   "mut",        "for",       "in",
      "if",        "else",     "and",        "or",        "not",
      "true",      "false",    "break",      "dim",       "data",
      "model",     "param",    "devices",    "sink",      "extern",
      "m",         "forward",  "f32",        "bf16",      "f16",
      "i32",       "bool",     "where",      "clip",      "dropout",
      "sum",       "mean",     "max",        "min",       "logsumexp",
      "var",       "std",      "argmax",     "softmax",   "log_softmax",
      "sort",      "argsort",  "layer_norm", "rms_norm",  "cross_entropy",
      "causal",    "matmul",   "concat",     "stack",     "pad",
      "conv",      "max_pool", "avg_pool",   "slices",    "einsum",
      "rearrange", "reduce",   "repeat",     "zeros",     "ones",
      "full",      "arange",   "normal",     "uniform",   "value_and_grad",
      "grad",      "update",   "norm",       "clip_norm", "exp",
      "log",       "sqrt",     "abs",        "tanh",      "sigmoid",
      "relu",      "gelu",     "maximum",    "minimum",   "range",
      "print",     "save",     "load",       "shape",     "len",
      "write",     "Index",    "Onnx",       "tensor",    "int",
      "float",     "str",      "SGD",        "Adam",      "AdamW",
      "Dataset",   "same",     "whole",      "batches",   "shuffle",
      "take",      "split",    "map",        "erf",       "floor",
      "ceil",      "round",    "sign",       "sin",       "cos",
      "asin",      "acos",     "atan",       "tan"};
  return names;
}

// A model's name as a comment of the program shows it: a control
// character (a newline would end the comment, and what follows it isn't
// shapescript) as '?'. Bytes that aren't UTF-8 become U+FFFD in the JSON
// the source travels in.
std::string printable(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (ok)
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

std::string float_text(double x) {
  char buffer[64];
  const auto r = std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(x));
  std::string s(buffer, r.ptr);
  if (const auto e = s.find("e+"); e != std::string::npos) s.erase(e + 1, 1);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  if (const auto e = s.find('e'); e != std::string::npos && s.find('.') == std::string::npos)
    s.insert(e, ".0");
  return s;
}

// `rearrange` texts (ops_common has the general ones; these keep the
// translator free of it).
std::string permuted_text(const std::string& x, const std::vector<std::int64_t>& perm) {
  bool identity = true;
  for (std::size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<std::int64_t>(i);
  if (identity) return x;
  std::string in, out;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    in += (i ? " a" : "a") + std::to_string(i);
    out += (i ? " a" : "a") + std::to_string(perm[i]);
  }
  return "rearrange(" + x + ", " + in + " -> " + out + ")";
}

// Leading axes of 1 added: `from` is `to` less them.
std::string reshape_text(const std::string& x, const std::vector<std::int64_t>& from,
                         const std::vector<std::int64_t>& to) {
  std::string in, out;
  for (std::size_t i = 0; i < from.size(); ++i) in += (i ? " a" : "a") + std::to_string(i);
  for (std::size_t i = 0; i < to.size() - from.size(); ++i) out += "1 ";
  out += in;
  return "rearrange(" + x + ", " + in + " -> " + out + ")";
}

// The sentinels of the generic translation running on this thread (empty
// otherwise), for the static helpers.
thread_local const std::map<std::string, std::int64_t>* g_sentinels = nullptr;

// `v` as a product of symbolic dims' sentinels and a count: the program's
// text for it ("batch", "batch*10"), or "" when it isn't one.
std::string symbolic_text(std::int64_t v, const std::map<std::string, std::int64_t>& sentinels,
                          const std::map<std::string, std::string>& names) {
  if (v <= 0 || sentinels.empty()) return {};
  std::vector<std::string> factors;
  std::int64_t rest = v;
  for (const auto& [name, s] : sentinels)
    if (rest % s == 0) {
      rest /= s;
      factors.push_back(names.count(name) ? names.at(name) : name);
    }
  if (factors.empty() || rest > 1000000) return {};
  std::string text;
  for (const auto& f : factors) text += (text.empty() ? "" : "*") + f;
  return rest == 1 ? text : text + "*" + std::to_string(rest);
}

bool is_symbolic(std::int64_t v) {
  return g_sentinels && !symbolic_text(v, *g_sentinels, {}).empty();
}

bool is_symbolic_value(double x) {
  return x == std::floor(x) && std::fabs(x) < 9e15 &&
         is_symbolic(static_cast<std::int64_t>(std::fabs(x)));
}

// Where a shape the translation binds differs from ONNX's inference (a
// prefix of a generic length, which ONNX clamped to the axis it slices),
// what ONNX inferred after it is forgotten, inferred again from the
// translation's shapes when a node needs it.
bool same_shape(const onnx::ValueInfoProto& vi, const std::vector<std::int64_t>& shape) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return true;
  const auto& dims = vi.type().tensor_type().shape().dim();
  if (dims.size() != static_cast<int>(shape.size())) return false;
  for (int k = 0; k < dims.size(); ++k)
    if (dims[k].has_dim_value() && dims[k].dim_value() != shape[static_cast<std::size_t>(k)])
      return false;
  return true;
}

[[noreturn]] void not_generic(const std::string& why) {
  throw ImportError{"E2007", why, {}, {}, {}, true};
}

}  // namespace ss::onnx_import::text
