#include "onnx/translator.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <regex>
#include <sstream>

#include "onnx/defs/schema.h"
#include "onnx/fold_known.hpp"
#include "onnx/import_error.hpp"
#include "onnx/shape_inference/implementation.h"
#include "onnx/translator_text.hpp"

namespace ss::onnx_import {

using namespace text;

void Translator::mark_generic(Port& p) const {
  p.axes.assign(p.shape.size(), "");
  for (std::size_t i = 0; i < p.shape.size(); ++i)
    for (const auto& [name, sentinel] : symbolic_.sentinels)
      if (symbolic_.generic && p.shape[i] % sentinel == 0 && p.shape[i] / sentinel <= 1000000) {
        p.axes[i] = p.axes[i].empty() ? name : p.axes[i] + "*" + name;
        if (p.shape[i] == sentinel) p.shape[i] = -1;
      }
}

bool Translator::has_open_axis(const std::vector<std::int64_t>& shape) {
  for (auto d : shape)
    if (is_symbolic(d)) return true;
  return false;
}

bool Translator::is_open_size(std::int64_t v) {
  if (!g_sentinels) return false;
  for (const auto& [name, sentinel] : *g_sentinels)
    if (v == sentinel) return true;
  return false;
}

void Translator::check_generic(const std::vector<std::int64_t>& shape, const char* what) {
  if (has_open_axis(shape))
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

std::string Translator::gather_dim(std::int64_t size) {
  return is_symbolic(size) ? std::to_string(size) : slicing_dim(size);
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
  forget_inference_after(node_->output(i), shape);
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
  // One value an element, whatever a handler computed from inputs ONNX's
  // inference didn't check: handlers after it index the values by shape.
  if (c.count() < 0 ||
      (c.is_float() ? c.floats.size() : c.ints.size()) != static_cast<std::size_t>(c.count()))
    unsupported("E2008",
                "`" + node_->output(i) + "` folds to a constant whose values don't fill its shape");
  forget_inference_after(node_->output(i), c.shape);
  Value v;
  v.shape = c.shape;
  v.onnx_type = c.onnx_type;
  v.constant = std::move(c);
  values_[node_->output(i)] = std::move(v);
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
  try {
    if (fold_known(*this)) {  // every input known at import: evaluated here
      node_ = nullptr;
      return;
    }
    if (follows_layout(n.op_type())) follow_layout();
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
    // A scalar constant as its type's tensor (`i32(0)`), not a bare number.
    const bool bare = v.expr.empty() && v.rank() == 0 && v.dtype() != "bool";
    returns.push_back(bare ? v.dtype() + "(" + operand(v) + ")" : operand(v));
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
