// The values controller code holds: numbers, strings, tensors, ranges,
// tuples, and the structures of training (models, optimisers, records and
// batches as tensors by path; datasets and their batching).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/controller/models.hpp"
#include "runtime/core/tensor.hpp"
#include "runtime/data/dataset.hpp"
#include "support/scalar_arith.hpp"

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
  std::int64_t whole = 0;  // an integer's value (64-bit, exact); batches: examples per batch
  double number = 0;       // a floating's value
  std::string text;
  std::vector<Value> items;
  std::int64_t lo = 0, hi = 0;  // range
  Fields fields;
  std::shared_ptr<const Dataset> data;
};

inline Value integer(std::int64_t x) {
  Value v;
  v.kind = Value::Kind::integer;
  v.whole = x;
  return v;
}

inline Value floating(double x) {
  Value v;
  v.kind = Value::Kind::floating;
  v.number = x;
  return v;
}

inline Value number(support::Number x) {
  return x.integer ? integer(x.i) : floating(x.f);
}

// A number read from a tensor element (an i32's, or a float's truncated
// when an integer is wanted).
inline Value number(double x, bool integer) {
  return integer ? runtime::integer(static_cast<std::int64_t>(x)) : floating(x);
}

// An integer or floating value, or a tensor's first element, as a number.
inline support::Number number_of(const Value& v) {
  if (v.kind == Value::Kind::integer) return support::Number::of_int(v.whole);
  if (v.kind == Value::Kind::tensor) {
    const double x = v.tensor.size() > 0 ? v.tensor.get(0) : 0;
    return is_float(v.tensor.dtype()) ? support::Number::of_float(x)
                                      : support::Number::of_int(static_cast<std::int64_t>(x));
  }
  return support::Number::of_float(v.number);
}

inline double as_double(const Value& v) {
  return number_of(v).as_double();
}

inline Value of_kind(Value::Kind kind) {
  Value v;
  v.kind = kind;
  return v;
}

inline bool truthy(const Value& v) {
  if (v.kind == Value::Kind::tensor) return v.tensor.size() > 0 && v.tensor.get(0) != 0;
  if (v.kind == Value::Kind::integer) return v.whole != 0;
  return v.number != 0;
}

// A number as a tensor expression's input: an i32 or f32 scalar (the
// caller checks an integer fits i32 first: support::fits_i32).
inline Tensor as_tensor(const Value& v) {
  if (v.kind == Value::Kind::tensor) return v.tensor;
  if (v.kind == Value::Kind::integer)
    return Tensor::scalar(DType::i32, static_cast<double>(v.whole));
  return Tensor::scalar(DType::f32, v.number);
}

// How print and f-strings show a value.
std::string show(const Value& v);

}  // namespace ss::runtime
