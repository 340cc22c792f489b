#include "runtime/controller/models.hpp"

#include <cmath>
#include <stdexcept>

#include "runtime/core/random.hpp"
#include "runtime/reference/interpreter.hpp"

namespace ss::runtime {
namespace {

using types::Type;

// A parameter's size on an axis: its dims are sized by the time a model is
// made (E0404 otherwise), and a parameter has no generic axis.
std::int64_t axis_size(const types::Axis& axis, const ir::Program& p) {
  const auto n = size_of(axis, {}, p.dims);
  if (!n) throw std::logic_error("a parameter's axis " + axis.str() + " has no size");
  return *n;
}

struct Walk {
  const ir::Program& p;
  std::uint64_t seed;
  Fields out;
  std::vector<ParamInfo> layout;
  std::uint32_t stream = 0;
  bool draw = true;

  void model(const std::string& name, const std::string& prefix) {
    for (const auto& m : p.models.at(name)) {
      const std::string path = prefix + m.name;
      if (m.type.is(Type::Kind::model)) {
        model(m.type.name, path + ".");
        continue;
      }
      if (!m.is_param) continue;
      Shape shape;
      for (const auto& axis : m.type.axes) shape.push_back(axis_size(axis, p));
      layout.push_back({path, dtype_of(m.type.elem), shape});
      if (draw) out[path] = initialise(m.init, dtype_of(m.type.elem), shape, stream);
      ++stream;
    }
  }

  Tensor initialise(const ir::Initialiser& init, DType dtype, const Shape& shape,
                    std::uint32_t k) const {
    Tensor t = Tensor::zeros(dtype, shape);
    const std::string& kind = init.kind;
    const auto setting = [&](const char* name, double fallback) {
      const auto it = init.settings.find(name);
      return it == init.settings.end() ? fallback : it->second;
    };
    double low = 0, high = 0;
    if (kind == "glorot") {
      const std::int64_t fan_out = shape.empty() ? 1 : shape.back();
      const std::int64_t fan_in = shape.size() <= 1 ? fan_out : element_count(shape) / fan_out;
      high = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
      low = -high;
    } else if (kind == "uniform") {
      low = setting("low", 0.0);
      high = setting("high", 1.0);
    }
    for (std::int64_t i = 0; i < t.size(); ++i) {
      const auto at = static_cast<std::uint64_t>(i);
      double v = 0;
      if (kind == "ones")
        v = 1;
      else if (kind == "normal")
        v = setting("mean", 0.0) + setting("std", 1.0) * random_normal(seed, k, at);
      else if (kind == "uniform" || kind == "glorot")
        v = low + (high - low) * random_uniform(seed, k, at);
      t.set(i, v);
    }
    return t;
  }
};

}  // namespace

std::vector<ParamInfo> model_layout(const ir::Program& program, const std::string& model) {
  Walk walk{program, 0};
  walk.draw = false;
  walk.model(model, "");
  return walk.layout;
}

Fields initialise_model(const ir::Program& program, const std::string& model, std::uint64_t seed) {
  Walk walk{program, seed};
  walk.model(model, "");
  return walk.out;
}

Fields make_optimizer(const ir::OptimizerSpec& spec, const Fields& model,
                      const std::map<std::string, double>& given) {
  Fields out;
  for (const auto& [name, fallback] : spec.settings) {
    const auto it = given.find(name);
    out[name] = Tensor::scalar(DType::f32, it == given.end() ? fallback : it->second);
  }
  out["step"] = Tensor::scalar(DType::f32, 0);
  for (const auto& state : spec.state)
    for (const auto& [path, tensor] : model)
      out[state + "." + path] = Tensor::zeros(DType::f32, tensor.shape());
  return out;
}

}  // namespace ss::runtime
