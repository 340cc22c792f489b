#include "onnx/translator.hpp"

#include <charconv>
#include <cmath>
#include <functional>
#include <regex>
#include <sstream>

#include "onnx/defs/schema.h"
#include "onnx/import_error.hpp"
#include "onnx/shape_inference/implementation.h"

namespace ss::onnx_import {
namespace {

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

[[noreturn]] void not_generic(const std::string& why) {
  throw ImportError{"E2007", why, {}, {}, {}, true};
}

}  // namespace

void Translator::mark_generic(Port& p) const {
  p.axes.assign(p.shape.size(), "");
  for (std::size_t i = 0; i < p.shape.size(); ++i)
    for (const auto& [name, sentinel] : symbolic_.sentinels)
      if (symbolic_.generic && p.shape[i] % sentinel == 0 && p.shape[i] / sentinel <= 1000000) {
        p.axes[i] = p.axes[i].empty() ? name : p.axes[i] + "*" + name;
        if (p.shape[i] == sentinel) p.shape[i] = -1;
      }
}

void Translator::check_generic(const std::vector<std::int64_t>& shape, const char* what) {
  for (auto d : shape)
    if (is_symbolic(d))
      not_generic(std::string(what) + " has an axis of a size the model leaves open");
}

std::int64_t Value::count() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

Translator::Translator(const onnx::ModelProto& model, std::string folder,
                       std::set<std::string> frozen, std::map<std::string, Constant> constants,
                       Symbolic symbolic)
    : model_(model),
      folder_(std::move(folder)),
      frozen_(std::move(frozen)),
      constants_(std::move(constants)),
      symbolic_(std::move(symbolic)) {}

std::string Translator::identifier(const std::string& onnx_name, const char* prefix) {
  std::string base = sanitize(onnx_name);
  if (base.empty() || (base[0] >= '0' && base[0] <= '9') || reserved_names().count(base) ||
      (base[0] >= 'A' && base[0] <= 'Z'))
    base = prefix + base;
  std::string name = base;
  for (int k = 2; used_names_.count(name); ++k) name = base + "_" + std::to_string(k);
  used_names_.insert(name);
  return name;
}

std::string Translator::type_text(const std::vector<std::int64_t>& shape,
                                  const std::string& dtype) {
  std::string t = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) t += (i ? " " : "") + std::to_string(shape[i]);
  t += "]";
  if (dtype != "f32") t += " " + dtype;
  return t;
}

std::string Translator::literal(double x, const std::string& dtype) {
  if (x == std::floor(x) && std::fabs(x) < 9e15 &&
      is_symbolic(static_cast<std::int64_t>(std::fabs(x))))
    not_generic("a size the model leaves open is used as a value");
  if (dtype == "bool") return x != 0 ? "true" : "false";
  if (dtype == "i32") {
    if (x < -2147483648.0 || x > 2147483647.0)
      fail("E2010",
           "a constant holds " + std::to_string(static_cast<std::int64_t>(x)) +
               ", outside int32's range",
           "shapescript holds int64 tensors as int32: values must lie in -2147483648..2147483647");
    return std::to_string(static_cast<std::int64_t>(x));
  }
  const std::string f = float_text(x);
  if (dtype == "f16" || dtype == "bf16") return dtype + "(" + f + ")";
  return f;
}

void Translator::unsupported(const std::string& code, const std::string& what,
                             const std::string& help) const {
  throw ImportError{code, what, node_ ? node_->name() : "", node_ ? node_->op_type() : "", help};
}

const Value* Translator::input(int i) const {
  if (i >= node_->input_size() || node_->input(i).empty()) return nullptr;
  auto it = values_.find(node_->input(i));
  if (it == values_.end())
    unsupported("E2002", "input `" + node_->input(i) + "` is not made by an earlier node");
  return &it->second;
}

const Value& Translator::need(int i) const {
  const Value* v = input(i);
  if (!v) unsupported("E2002", "input " + std::to_string(i) + " is missing");
  return *v;
}

const onnx::AttributeProto* Translator::attr(const std::string& name) const {
  for (const auto& a : node_->attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool Translator::has(const std::string& name) const {
  return attr(name) != nullptr;
}

std::int64_t Translator::int_attr(const std::string& name, std::int64_t fallback) const {
  const auto* a = attr(name);
  return a ? a->i() : fallback;
}
float Translator::float_attr(const std::string& name, float fallback) const {
  const auto* a = attr(name);
  return a ? a->f() : fallback;
}
std::string Translator::string_attr(const std::string& name, const std::string& fallback) const {
  const auto* a = attr(name);
  return a ? a->s() : fallback;
}
std::vector<std::int64_t> Translator::ints_attr(const std::string& name) const {
  const auto* a = attr(name);
  return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end())
           : std::vector<std::int64_t>{};
}
std::vector<float> Translator::floats_attr(const std::string& name) const {
  const auto* a = attr(name);
  return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : std::vector<float>{};
}

bool Translator::shape_known(const std::string& name) const {
  auto it = infos_.find(name);
  if (it == infos_.end() || !it->second.type().has_tensor_type() ||
      !it->second.type().tensor_type().has_shape())
    return false;
  for (const auto& d : it->second.type().tensor_type().shape().dim())
    if (!d.has_dim_value()) return false;
  return true;
}

// ONNX's inference runs again with what the translation knows: every value's
// shape, and the nodes it folded as Constants (so its data propagation sees
// their values). Where ONNX's propagation stopped at a shape computation the
// translation folded (a Mod of sizes, say), the shapes after it are found.
void Translator::refresh_inference() {
  onnx::ModelProto work = model_;
  auto* g = work.mutable_graph();
  g->clear_value_info();
  std::set<std::string> inputs;
  for (const auto& vi : g->input()) inputs.insert(vi.name());
  for (int k = 0; k < node_index_; ++k) {
    auto* n = g->mutable_node(k);
    bool folded = n->output_size() == 1;
    for (const auto& o : n->output()) {
      auto it = values_.find(o);
      folded = folded && it != values_.end() && it->second.constant && it->second.expr.empty() &&
               !it->second.constant->is_float();
    }
    if (!folded) continue;
    const Constant& c = *values_.at(n->output(0)).constant;
    onnx::NodeProto constant;
    constant.set_op_type("Constant");
    constant.set_name(n->name());
    constant.add_output(n->output(0));
    auto* a = constant.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* tensor = a->mutable_t();
    tensor->set_data_type(onnx::TensorProto::INT64);
    for (auto d : c.shape) tensor->add_dims(d);
    for (auto v : c.ints) tensor->add_int64_data(v);
    *n = std::move(constant);
  }
  for (const auto& [name, v] : values_) {
    if (inputs.count(name) || ss_dtype(v.onnx_type).empty()) continue;
    auto* vi = g->add_value_info();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(v.constant && !v.constant->is_float() && v.expr.empty()
                          ? onnx::TensorProto::INT64
                          : v.onnx_type);
    auto* shape = tt->mutable_shape();
    for (auto d : v.shape) shape->add_dim()->set_dim_value(d);
  }
  try {
    onnx::ShapeInferenceOptions options{false, 0, true};
    onnx::shape_inference::InferShapes(work, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception&) {
    return;  // what is still unknown stays E2007
  }
  for (const auto& vi : work.graph().value_info())
    if (!shape_known(vi.name())) infos_[vi.name()] = vi;
  for (const auto& vi : work.graph().output())
    if (!shape_known(vi.name())) infos_[vi.name()] = vi;
}

std::vector<std::int64_t> Translator::out_shape(int i) const {
  const std::string& name = node_->output(i);
  if (!shape_known(name) && !refreshed_.count(name)) {
    refreshed_.insert(name);
    const_cast<Translator*>(this)->refresh_inference();
  }
  auto it = infos_.find(name);
  if (it == infos_.end() || !it->second.type().has_tensor_type() ||
      !it->second.type().tensor_type().has_shape())
    unsupported("E2007", "the shape of `" + name + "` depends on the values the model computes",
                "shapescript sizes every tensor before it runs; a size computed from data has no "
                "place in it");
  std::vector<std::int64_t> shape;
  for (const auto& d : it->second.type().tensor_type().shape().dim()) {
    if (!d.has_dim_value())
      unsupported("E2007",
                  "the size of an axis of `" + name + "` depends on " +
                      (d.has_dim_param() ? "`" + d.dim_param() + "`, a size the model leaves open"
                                         : std::string("the values the model computes")),
                  "shapescript sizes every tensor before it runs");
    // An empty tensor, or a size ONNX's inference made negative from
    // attributes it doesn't check (a stride of 0: fuzz_onnx's fifteenth find).
    if (d.dim_value() < 1)
      unsupported("E2008", "ONNX infers `" + name + "` an axis of size " +
                               std::to_string(d.dim_value()) +
                               "; shapescript's sizes are 1 or more");
    shape.push_back(d.dim_value());
  }
  return shape;
}

int Translator::out_type(int i) const {
  auto it = infos_.find(node_->output(i));
  if (it == infos_.end() || !it->second.type().has_tensor_type())
    unsupported("E2007", "the element type of `" + node_->output(i) + "` isn't known at import");
  return it->second.type().tensor_type().elem_type();
}

std::string Translator::temp() {
  return identifier("t" + std::to_string(++temps_), "t");
}

std::string Translator::let(const std::string& expr) {
  const std::string name = temp();
  body_.push_back(indent_ + name + " = " + expr);
  return name;
}

void Translator::assign(const std::string& name, const std::string& expr) {
  body_.push_back(indent_ + name + " = " + expr);
}

void Translator::begin_block(const std::string& line) {
  body_.push_back(indent_ + line);
  indent_ += "    ";
}

void Translator::end_block() {
  indent_.resize(indent_.size() - 4);
}

void Translator::let_typed(const std::string& name, const std::string& type,
                           const std::string& expr) {
  body_.push_back(indent_ + name + ": " + type + " = " + expr);
}

std::string Translator::slicing_dim(std::int64_t size) {
  if (is_symbolic(size))
    not_generic("an axis of a size the model leaves open is sliced or gathered");
  auto it = slicing_dims_.find(size);
  if (it != slicing_dims_.end()) return it->second;
  const std::string name = "N" + std::to_string(size);
  used_names_.insert(name);
  return slicing_dims_[size] = name;
}

void Translator::emit_as(const std::string& expr, std::vector<std::int64_t> shape, int onnx_type,
                         int i) {
  if (ss_dtype(onnx_type).empty())
    unsupported("E2006", "output `" + node_->output(i) + "` is " + onnx_type_name(onnx_type) +
                             ", an element type shapescript doesn't have");
  Value v;
  v.expr = identifier(node_->output(i), "v_");
  v.shape = std::move(shape);
  v.onnx_type = onnx_type;
  v.perm = emit_perm_.empty() ? node_perm_ : emit_perm_;
  if (v.perm.size() != v.shape.size()) v.perm.clear();
  std::string line = "    " + v.expr + " = " + expr;
  const std::string comment =
      "  # " + (node_->name().empty() ? std::string("(unnamed)") : printable(node_->name())) +
      ": " + printable(node_->op_type());
  body_.push_back(line + comment);
  values_[node_->output(i)] = std::move(v);
}

const Value* Translator::value_named(const std::string& onnx_name) const {
  const auto it = values_.find(onnx_name);
  return it == values_.end() ? nullptr : &it->second;
}

void Translator::note_derived(Derived d, int i) {
  // Through a value that was itself derived: its source, the factors and
  // swaps composed.
  if (const Value* from = value_named(d.from); from && from->derived) {
    d.scale *= from->derived->scale;
    d.swapped = d.swapped != from->derived->swapped;
    d.from = from->derived->from;
  }
  values_.at(node_->output(i)).derived = std::move(d);
}

void Translator::emit(const std::string& expr, int i) {
  emit_as(expr, out_shape(i), out_type(i), i);
}

void Translator::emit_in_layout(const std::string& expr, const std::vector<std::int64_t>& perm,
                                int i) {
  emit_perm_ = perm;
  emit_as(expr, out_shape(i), out_type(i), i);
  emit_perm_.clear();
}

std::vector<std::int64_t> Translator::physical_shape(const std::vector<std::int64_t>& shape) const {
  if (node_perm_.size() != shape.size()) return shape;
  std::vector<std::int64_t> out;
  for (auto p : node_perm_) out.push_back(shape[static_cast<std::size_t>(p)]);
  return out;
}

bool Translator::follow_layout() {
  std::size_t rank = 0;
  for (int i = 0; i < node_->output_size(); ++i)
    if (auto it = infos_.find(node_->output(i));
        it != infos_.end() && it->second.type().has_tensor_type())
      rank = static_cast<std::size_t>(it->second.type().tensor_type().shape().dim_size());
  for (int i = 0; i < node_->input_size(); ++i) {
    const Value* v = input(i);
    if (v && !v->perm.empty() && !v->expr.empty() && v->perm.size() == rank) {
      node_perm_ = v->perm;
      return true;
    }
  }
  return false;
}

void Translator::fold(Constant c, int i) {
  Value v;
  v.shape = c.shape;
  v.onnx_type = c.onnx_type;
  v.constant = std::move(c);
  values_[node_->output(i)] = std::move(v);
}

std::string Translator::param_for(const std::string& onnx_name, const Constant& c,
                                  const std::string& layout) {
  // One parameter per initializer and layout: a weight read both as it is
  // and permuted (a kernel) is two parameters.
  const std::string key = layout.empty() ? onnx_name : onnx_name + "\n" + layout;
  auto it = param_of_.find(key);
  if (it != param_of_.end()) return "m." + it->second;
  const std::string name = identifier(onnx_name, "p_");
  params_[name] = c;
  param_of_[key] = name;
  if (sanitize(onnx_name) != name || !layout.empty())
    renames_.push_back("#   m." + name + ": `" + printable(onnx_name) + "`" +
                       (layout.empty() ? "" : ", " + layout));
  return "m." + name;
}

std::string Translator::name_of(const Value& v) const {
  for (const auto& [name, value] : values_)
    if (&value == &v) return name;
  return {};
}

std::string Translator::param_operand(const Constant& c, const std::string& onnx_name,
                                      const std::string& layout) {
  const std::string p = param_for(onnx_name, c, layout);
  const std::string dtype = ss_dtype(c.onnx_type);
  return dtype == "f32" ? p : dtype + "(" + p + ")";
}

std::string Translator::operand(const Value& v) {
  if (!node_perm_.empty()) return in_layout(v, node_perm_);
  return onnx_operand(v);
}

std::string Translator::in_layout(const Value& v, const std::vector<std::int64_t>& perm) {
  if (!v.expr.empty() && v.perm == perm) return v.expr;
  const std::size_t r = perm.size();
  if (v.rank() == 0) return onnx_operand(v);  // a scalar broadcasts in any layout
  const std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(&v)) + "/" + [&] {
    std::string k;
    for (auto p : perm) k += std::to_string(p) + " ";
    return k;
  }();
  if (auto it = layout_cache_.find(key); it != layout_cache_.end()) return it->second;
  // ONNX's broadcasting first (leading axes of 1), then the permutation.
  std::string e = onnx_operand(v);
  if (v.rank() < r) {
    std::vector<std::int64_t> full(r - v.rank(), 1);
    full.insert(full.end(), v.shape.begin(), v.shape.end());
    e = reshape_text(e, v.shape, full);
  }
  e = let(permuted_text(e, perm));
  return layout_cache_[key] = e;
}

std::string Translator::onnx_operand(const Value& v) {
  if (!v.expr.empty() && !v.perm.empty()) {
    // Back to ONNX's order, once.
    const std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(&v)) + "/onnx";
    if (auto it = layout_cache_.find(key); it != layout_cache_.end()) return it->second;
    std::vector<std::int64_t> inverse(v.perm.size());
    for (std::size_t i = 0; i < v.perm.size(); ++i)
      inverse[static_cast<std::size_t>(v.perm[i])] = static_cast<std::int64_t>(i);
    return layout_cache_[key] = let(permuted_text(v.expr, inverse));
  }
  if (!v.expr.empty()) return v.expr;
  const Constant& c = *v.constant;
  const std::string dtype = ss_dtype(c.onnx_type);
  if (dtype.empty())
    unsupported("E2006", "a constant of " + onnx_type_name(c.onnx_type) + " reaches a computation");
  check_generic(c.shape, "a constant");
  bool finite = true;
  for (double x : c.floats) finite = finite && std::isfinite(x);
  const bool small = c.count() <= 1 || v.frozen;
  if (c.is_float() && (!finite || !small)) {
    // A parameter of the model, by the ONNX name it had (a constant's
    // output name when a node made it).
    std::string key = name_of(v);
    if (key.empty()) key = "constant" + std::to_string(params_.size());
    return param_operand(c, key);
  }
  if (c.shape.empty()) return literal(c.at(0), dtype);
  // A tensor literal, nested by the shape; a shape with an empty axis can't be written.
  if (c.count() == 0) unsupported("E2007", "a constant with an empty axis reaches a computation");
  std::string text;
  std::vector<std::int64_t> index(c.shape.size(), 0);
  const std::string elem_dtype = dtype == "f16" || dtype == "bf16" ? "f32" : dtype;
  std::function<void(std::size_t, std::int64_t&)> write = [&](std::size_t axis,
                                                              std::int64_t& flat) {
    text += "[";
    for (std::int64_t k = 0; k < c.shape[axis]; ++k) {
      if (k) text += ", ";
      if (axis + 1 == c.shape.size())
        text += literal(c.at(static_cast<std::size_t>(flat++)), elem_dtype);
      else
        write(axis + 1, flat);
    }
    text += "]";
  };
  std::int64_t flat = 0;
  write(0, flat);
  if (dtype == "f16" || dtype == "bf16") return dtype + "(" + text + ")";
  return text;
}

void Translator::read_graph() {
  const auto& g = model_.graph();
  for (const auto& vi : g.value_info()) infos_[vi.name()] = vi;
  for (const auto& vi : g.output()) infos_[vi.name()] = vi;
  for (const auto& vi : g.input()) infos_[vi.name()] = vi;
  for (const auto& t : g.initializer()) {
    Value v;
    v.constant = read_constant(t, folder_);
    v.shape = v.constant->shape;
    v.onnx_type = v.constant->onnx_type;
    if (v.constant->is_float() && ss_dtype(v.onnx_type).empty())
      fail("E2006", "initializer `" + t.name() + "` is " + onnx_type_name(v.onnx_type) +
                        ", an element type shapescript doesn't have");
    v.frozen = frozen_.count(t.name()) > 0;
    values_[t.name()] = std::move(v);
  }
  check_frozen_names();
  for (const auto& vi : g.input()) {
    if (values_.count(vi.name())) continue;  // an initializer's default
    if (!vi.type().has_tensor_type())
      fail("E2006", "input `" + vi.name() + "` isn't a tensor (a sequence, a map or an optional)");
    if (auto given = constants_.find(vi.name()); given != constants_.end()) {
      Constant c = given->second;
      c.onnx_type = vi.type().tensor_type().elem_type();
      if (!c.is_float()) {
        for (double x : c.floats) c.ints.push_back(static_cast<std::int64_t>(x));
        c.floats.clear();
      }
      Value v;
      v.shape = c.shape;
      v.onnx_type = c.onnx_type;
      v.constant = std::move(c);
      values_[vi.name()] = std::move(v);
      continue;
    }
    Port p;
    p.onnx_name = vi.name();
    p.onnx_type = vi.type().tensor_type().elem_type();
    p.dtype = ss_dtype(p.onnx_type);
    if (p.dtype.empty())
      fail("E2006",
           "input `" + vi.name() + "` is " + onnx_type_name(p.onnx_type) +
               ", an element type shapescript doesn't have",
           "shapescript's element types are float32, float16, bfloat16, int32 (int64 narrowed) and "
           "bool");
    for (const auto& d : vi.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value())
        fail("E2007",
             "input `" + vi.name() + "` has an axis of open size" +
                 (d.has_dim_param() ? " (`" + d.dim_param() + "`)" : std::string()),
             "give the model fixed input sizes (export with a fixed example's shape)");
      p.shape.push_back(d.dim_value());
    }
    if (auto axes = symbolic_.axes.find(vi.name()); axes != symbolic_.axes.end())
      for (std::size_t i = 0; i < axes->second.size(); ++i)
        if (!axes->second[i].empty())
          sized_.push_back("#   axis " + std::to_string(i) + " of input `" + printable(vi.name()) +
                           "`: the graph's `" + printable(axes->second[i]) + "`, " +
                           (symbolic_.generic ? std::string("a generic axis")
                                              : std::to_string(p.shape[i]) + " at this import"));
    p.name = is_identifier(vi.name()) && !reserved_names().count(vi.name()) &&
                     !used_names_.count(vi.name()) && !(vi.name()[0] >= 'A' && vi.name()[0] <= 'Z')
                 ? vi.name()
                 : identifier(vi.name(), "in_");
    used_names_.insert(p.name);
    if (p.name != vi.name())
      renames_.push_back("#   " + p.name + ": input `" + printable(vi.name()) + "`");
    Value v;
    v.expr = p.name;
    v.shape = p.shape;
    v.onnx_type = p.onnx_type;
    values_[vi.name()] = v;
    mark_generic(p);
    inputs_.push_back(std::move(p));
  }
}

void Translator::translate_node(const onnx::NodeProto& n) {
  node_ = &n;
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    unsupported("E2004", "op `" + n.op_type() + "` of domain `" + n.domain() + "` isn't supported",
                "shapescript imports the default ONNX domain's ops (docs/onnx.md lists them)");
  Handler h = handler_for(n.op_type());
  if (!h)
    unsupported("E2004", "op `" + n.op_type() + "` isn't supported",
                "docs/onnx.md lists the ops shapescript imports");
  node_perm_.clear();
  if (follows_layout(n.op_type())) follow_layout();
  try {
    h(*this);
    node_perm_.clear();
  } catch (ImportError& e) {
    if (e.op.empty()) {  // raised below the handler (a literal, a tensor): name the node
      e.node = n.name();
      e.op = n.op_type();
    }
    throw;
  }
  node_ = nullptr;
}

void Translator::run() {
  // A generic translation: its symbolic dims' axes, named for the program.
  struct Guard {
    ~Guard() { g_sentinels = nullptr; }
  } guard;
  if (symbolic_.generic) {
    g_sentinels = &symbolic_.sentinels;
    for (const auto& [onnx_name, sentinel] : symbolic_.sentinels) {
      std::string base = sanitize(onnx_name);
      for (auto& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (base.empty() || (base[0] >= '0' && base[0] <= '9')) base = "n" + base;
      std::string name = base;
      for (int k = 2; used_names_.count(name) || reserved_names().count(name); ++k)
        name = base + "_" + std::to_string(k);
      used_names_.insert(name);
      symbolic_.axis_names[onnx_name] = name;
    }
  }
  read_graph();
  for (const auto& n : model_.graph().node()) {
    translate_node(n);
    ++node_index_;
  }
  std::vector<std::string> returns, types;
  for (const auto& vi : model_.graph().output()) {
    auto it = values_.find(vi.name());
    if (it == values_.end()) fail("E2002", "output `" + vi.name() + "` is made by no node");
    Value& v = it->second;
    Port p;
    p.onnx_name = vi.name();
    p.onnx_type = v.onnx_type;
    p.dtype = v.dtype();
    p.shape = v.shape;
    p.name = vi.name();
    if (v.count() == 0)
      fail("E2007", "output `" + vi.name() + "` is empty (an axis of size 0)",
           "shapescript's tensors have no empty axes");
    returns.push_back(operand(v));
    types.push_back(type_text(v.shape, v.dtype()));
    mark_generic(p);
    outputs_.push_back(std::move(p));
  }
  for (const auto& [name, value] : values_)
    if (!value.expr.empty() && value.count() == 0)
      fail("E2007", "`" + name + "` is empty (an axis of size 0)",
           "shapescript's tensors have no empty axes");

  std::ostringstream s;
  s << "# Imported from ONNX by shapescript (graph `" << printable(model_.graph().name())
    << "`, opset ";
  for (const auto& o : model_.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") s << o.version();
  s << ").\n";
  if (!sized_.empty()) {
    s << (symbolic_.generic
              ? "# Sizes the graph leaves open, generic axes of the program:\n"
              : "# Sizes the graph leaves open, given at import (the program is made for them):\n");
    for (const auto& line : sized_) s << line << "\n";
  }
  if (!renames_.empty()) {
    s << "# Names and layouts that differ from the graph's:\n";
    for (const auto& r : renames_) s << r << "\n";
  }
  for (const auto& [size, name] : slicing_dims_) s << "dim " << name << " = " << size << "\n";
  if (!slicing_dims_.empty()) s << "\n";
  if (has_model()) {
    s << "model Onnx:\n";
    for (const auto& [name, c] : params_)
      s << "    param " << name << ": " << type_text(c.shape, "f32") << " = zeros\n";
    s << "\n";
  }
  s << "fn forward(";
  bool first = true;
  if (has_model()) {
    s << "m: Onnx";
    first = false;
  }
  for (const auto& p : inputs_) {
    s << (first ? "" : ", ") << p.name << ": " << type_text(values_.at(p.onnx_name).shape, p.dtype);
    first = false;
  }
  s << ") -> ";
  if (types.size() == 1)
    s << types[0];
  else {
    s << "(";
    for (std::size_t i = 0; i < types.size(); ++i) s << (i ? ", " : "") << types[i];
    s << ")";
  }
  s << ":\n";
  for (const auto& line : body_) s << line << "\n";
  s << "    return ";
  for (std::size_t i = 0; i < returns.size(); ++i) s << (i ? ", " : "") << returns[i];
  s << "\n";
  source_ = s.str();
  if (symbolic_.generic) {
    // The sentinels back to the generic axes they stand for, wherever the
    // text writes a size (a type, a size keyword, a constructor's shape).
    static const std::regex number(R"((^|[^\w.])(\d+)(?![\w.]))");
    std::string out;
    auto begin = source_.cbegin();
    for (std::sregex_iterator it(source_.begin(), source_.end(), number), end; it != end; ++it) {
      const auto& m = *it;
      out.append(begin, m[2].first);
      const std::string digits = m[2].str();
      const std::string text =
          digits.size() < 18
              ? symbolic_text(std::stoll(digits), symbolic_.sentinels, symbolic_.axis_names)
              : "";
      out += text.empty() ? digits : text;
      begin = m[2].second;
    }
    out.append(begin, source_.cend());
    source_ = std::move(out);
  }
}

}  // namespace ss::onnx_import
