#include "runtime/controller/value.hpp"

#include "runtime/core/format.hpp"

namespace ss::runtime {

std::string show(const Value& v) {
  switch (v.kind) {
    case Value::Kind::unbound:
    case Value::Kind::none:
      return "None";
    case Value::Kind::tensor:
      return format_tensor(v.tensor);
    case Value::Kind::integer:
      return std::to_string(v.whole);
    case Value::Kind::floating:
      return format_float(v.number, DType::f32);
    case Value::Kind::string:
      return v.text;
    case Value::Kind::tuple: {
      std::string out = "(";
      for (std::size_t i = 0; i < v.items.size(); ++i) out += (i ? ", " : "") + show(v.items[i]);
      return out + ")";
    }
    case Value::Kind::range:
      return "range(" + std::to_string(v.lo) + ", " + std::to_string(v.hi) + ")";
    case Value::Kind::function:
      return "<fn " + v.text + ">";
    case Value::Kind::model:
      return "<model " + v.text + ">";
    case Value::Kind::optimizer:
      return "<optimiser " + v.text + ">";
    case Value::Kind::record:
      return "<" + v.text + ">";
    case Value::Kind::dataset:
      return "<dataset of " + std::to_string(v.data ? v.data->size() : 0) + ">";
    case Value::Kind::batches:
      return "<batches of " + std::to_string(v.whole) + ">";
  }
  return "?";
}

}  // namespace ss::runtime
