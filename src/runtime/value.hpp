// The values controller code holds: numbers, strings, tensors, ranges,
// tuples, and the structures of training (models, optimisers, records and
// batches as tensors by path; datasets and their batching).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/dataset.hpp"
#include "runtime/models.hpp"
#include "runtime/tensor.hpp"

namespace ss::runtime {

struct Value {
  enum class Kind {
    unbound,
    none,
    tensor,
    integer,
    floating,
    string,
    tuple,
    range,
    function,
    model,      // text: the model's name; fields: its parameters
    optimizer,  // text: its kind (AdamW); fields: settings, step, state
    record,     // text: the record's name; fields: a batch's (or an example's) tensors
    dataset,    // data
    batches,    // data, cut into batches of `number` examples
  };
  Kind kind = Kind::unbound;
  Tensor tensor;
  double number = 0;
  std::string text;
  std::vector<Value> items;
  std::int64_t lo = 0, hi = 0;  // range
  Fields fields;
  std::shared_ptr<const Dataset> data;
};

inline Value number(double x, bool integer) {
  Value v;
  v.kind = integer ? Value::Kind::integer : Value::Kind::floating;
  v.number = integer ? static_cast<double>(static_cast<long long>(x)) : x;
  return v;
}

inline Value of_kind(Value::Kind kind) {
  Value v;
  v.kind = kind;
  return v;
}

inline bool truthy(const Value& v) {
  if (v.kind == Value::Kind::tensor) return v.tensor.size() > 0 && v.tensor.get(0) != 0;
  return v.number != 0;
}

inline Tensor as_tensor(const Value& v) {
  if (v.kind == Value::Kind::tensor) return v.tensor;
  return Tensor::scalar(v.kind == Value::Kind::integer ? DType::i32 : DType::f32, v.number);
}

// How print and f-strings show a value.
std::string show(const Value& v);

}  // namespace ss::runtime
