#include "types/types.hpp"

#include "types/size_arith.hpp"

namespace ss::types {

bool Axis::has_generic(const std::string& name) const {
  for (const auto& f : factors)
    if (f.kind == Factor::Kind::generic && f.name == name) return true;
  return false;
}

std::string Axis::str() const {
  std::string out;
  for (const auto& f : factors) {
    if (!out.empty()) out += "*";
    out += f.kind == Factor::Kind::literal ? std::to_string(f.value) : f.name;
  }
  return out.empty() ? "1" : out;
}

std::string Elem::str() const {
  switch (kind) {
    case ElemKind::f32:
      return "f32";
    case ElemKind::bf16:
      return "bf16";
    case ElemKind::f16:
      return "f16";
    case ElemKind::i32:
      return "i32";
    case ElemKind::boolean:
      return "bool";
    case ElemKind::index:
      return "Index[" + (index_of ? index_of->str() : std::string("?")) + "]";
  }
  return "f32";
}

std::string axes_str(const std::vector<Axis>& axes) {
  std::string out = "[";
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (i) out += " ";
    out += axes[i].str();
  }
  return out + "]";
}

std::string Type::str() const {
  switch (kind) {
    case Kind::error:
      return "{error}";
    case Kind::tensor: {
      std::string out = axes_str(axes);
      if (elem.kind != ElemKind::f32) out += " " + elem.str();
      return out;
    }
    case Kind::any_tensor:
      return "tensor";
    case Kind::record:
      return name;
    case Kind::batch:
      return "[" + batch_axis.str() + "] " + name;
    case Kind::model:
      return name;
    case Kind::optimizer:
      return opt_kind + "[" + name + "]";
    case Kind::dataset:
      return "Dataset[" + name + "]";
    case Kind::batches:
      return "batches of [" + batch_axis.str() + "] " + name;
    case Kind::range:
      return "range";
    case Kind::integer:
      return "int";
    case Kind::floating:
      return "float";
    case Kind::string:
      return "str";
    case Kind::tuple: {
      std::string out = "(";
      for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i].str();
      return out + ")";
    }
    case Kind::none:
      return "nothing";
    case Kind::sink:
      return "sink";
    case Kind::shape:
      return "shape";
    case Kind::function:
      return "fn " + name;
    case Kind::slices:
      return "slices of " + axes_str(axes) + " over " + batch_axis.str();
  }
  return "?";
}

Axis substitute(const Axis& a, const std::map<std::string, Axis>& bindings) {
  Axis out;
  for (const auto& f : a.factors) {
    const auto it = f.kind == Factor::Kind::generic ? bindings.find(f.name) : bindings.end();
    if (it == bindings.end())
      out.factors.push_back(f);
    else
      out.factors.insert(out.factors.end(), it->second.factors.begin(), it->second.factors.end());
  }
  return out;
}

std::optional<std::int64_t> static_size(
    const Axis& axis, const std::map<std::string, std::optional<std::int64_t>>& dims) {
  std::optional<std::int64_t> n = 1;
  for (const auto& f : axis.factors) {
    if (f.kind == Factor::Kind::literal) {
      n = mul_sizes(*n, f.value);
    } else {
      const auto it = dims.find(f.name);
      if (f.kind != Factor::Kind::dim || it == dims.end() || !it->second) return std::nullopt;
      n = mul_sizes(*n, *it->second);
    }
    if (!n) return std::nullopt;  // past 2^63 - 1
  }
  return n;
}

std::string instance_name(const std::string& base, const std::vector<Axis>& args) {
  std::string out = base + "[";
  for (std::size_t k = 0; k < args.size(); ++k) out += (k ? ", " : "") + args[k].str();
  return out + "]";
}

std::string model_base(const std::string& name) {
  if (!name.empty() && name[0] == '[') return name;  // a stack, "[L] Block": its own
  return name.substr(0, name.find('['));
}

Type substitute(Type t, const std::map<std::string, Axis>& bindings) {
  for (auto& a : t.axes) a = substitute(a, bindings);
  // A generic model's instance (or an optimiser of one) is named by its dims.
  if ((t.is(Type::Kind::model) || t.is(Type::Kind::optimizer)) && !t.axes.empty())
    t.name = instance_name(model_base(t.name), t.axes);
  if (t.elem.index_of) t.elem.index_of = substitute(*t.elem.index_of, bindings);
  if (t.is(Type::Kind::batch)) t.batch_axis = substitute(t.batch_axis, bindings);
  for (auto& item : t.items) item = substitute(item, bindings);
  return t;
}

}  // namespace ss::types
