// Values written into the program: literals, tensor literals, parameters,
// and a value in ONNX's order or a layout.
#include "onnx/translator.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "onnx/import_error.hpp"
#include "onnx/translator_text.hpp"

namespace ss::onnx_import {

using namespace text;

std::string Translator::literal(double x, const std::string& dtype) {
  // An open axis's size used as a value: the sentinel is written, which the
  // program's text writes back as the generic axis, its size at each call
  // (through a cast to its type, so the text's digits stand alone and its
  // type is the tensor's).
  const bool symbolic = is_symbolic_value(x);
  if (symbolic && dtype != "bool") {  // a tensor of its type: `i32(batch)`, not the dim's int
    const auto n = static_cast<std::int64_t>(std::fabs(x));
    if (n > 2147483647) not_generic("a product of open sizes is used as a value");
    return std::string(x < 0 ? "-" : "") + dtype + "(" + std::to_string(n) + ")";
  }
  if (symbolic && std::fabs(x) > 2147483647.0)
    not_generic("a product of open sizes is used as a value");
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
  const std::string elem_dtype = dtype == "f16" || dtype == "bf16" ? "f32" : dtype;
  // Elements that are open sizes (a shape of generic axes as a value) can't
  // stand in a literal, which is static: the literal holds 0 there, plus
  // each size times a literal of 0s and 1s marking where it goes.
  std::map<double, std::vector<std::size_t>> open;
  for (std::int64_t i = 0; i < c.count(); ++i) {
    const double x = c.at(static_cast<std::size_t>(i));
    if (dtype != "bool" && is_symbolic_value(x)) open[x].push_back(static_cast<std::size_t>(i));
  }
  const auto tensor = [&](const std::function<double(std::size_t)>& at) {
    std::string text;
    std::function<void(std::size_t, std::size_t&)> write = [&](std::size_t axis,
                                                               std::size_t& flat) {
      text += "[";
      for (std::int64_t k = 0; k < c.shape[axis]; ++k) {
        if (k) text += ", ";
        if (axis + 1 == c.shape.size())
          text += literal(at(flat++), elem_dtype);
        else
          write(axis + 1, flat);
      }
      text += "]";
    };
    std::size_t flat = 0;
    write(0, flat);
    return text;
  };
  std::string text = tensor([&](std::size_t i) {
    for (const auto& [x, at] : open)
      if (std::find(at.begin(), at.end(), i) != at.end()) return 0.0;
    return c.at(i);
  });
  for (const auto& entry : open) {
    const std::vector<std::size_t>& at = entry.second;
    text += " + " + tensor([&](std::size_t i) {
              return std::find(at.begin(), at.end(), i) != at.end() ? 1.0 : 0.0;
            }) +
            " * " + literal(entry.first, elem_dtype);
  }
  if (!open.empty()) text = "(" + text + ")";
  if (dtype == "f16" || dtype == "bf16") return dtype + "(" + text + ")";
  return text;
}

}  // namespace ss::onnx_import
