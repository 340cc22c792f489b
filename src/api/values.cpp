// ss::Value's reading side: its kind, type and version, and its tensors
// shared out to the host without a copy.
#include <algorithm>

#include "api/value_fit.hpp"
#include "api/value_state.hpp"

namespace ss {
namespace {

using RKind = runtime::Value::Kind;

// A runtime tensor as the host's, sharing its buffer (kept alive by the
// host's tensor): versions are immutable, so the host reads what it got.
Tensor shared_out(const runtime::Tensor& t) {
  return Tensor::shared(static_cast<DType>(t.dtype()), t.raw(), t.shape(), t.strides(), t.buffer());
}

// The library's own copy, frozen: a published version is never written,
// so executors may keep what they derive from it (packed GEMM panels).
runtime::Tensor owned_tensor(const runtime::Tensor& t) {
  runtime::Tensor out = t.buffer() && t.buffer()->owned() ? t : t.clone();
  if (out.buffer()) out.buffer()->freeze();
  return out;
}

}  // namespace

runtime::Value owned(runtime::Value v) {
  v.tensor = v.tensor.buffer() ? owned_tensor(v.tensor) : v.tensor;
  for (auto& [path, t] : v.fields) t = owned_tensor(t);
  for (auto& item : v.items) item = owned(std::move(item));
  if (v.data) {
    bool borrowed = false;
    for (const auto& c : v.data->columns) borrowed |= !(c.buffer() && c.buffer()->owned());
    if (borrowed) {
      auto copy = std::make_shared<runtime::Dataset>(*v.data);
      for (auto& c : copy->columns) c = owned_tensor(c);
      v.data = std::move(copy);
    }
  }
  return v;
}

Value ValueAccess::make(runtime::Value v, std::string name, std::string optimizer,
                        std::string label, std::uint64_t fits) {
  Value out;
  out.state_ = std::make_shared<Value::State>();
  out.state_->name = std::move(name);
  out.state_->optimizer = std::move(optimizer);
  out.state_->label = std::move(label);
  out.state_->publish(owned(std::move(v)), fits);
  return out;
}

Value::Kind Value::kind() const {
  if (!state_) return Kind::empty;
  switch (state_->current().value->kind) {
    case RKind::tensor:
      return Kind::tensor;
    case RKind::integer:
      return Kind::integer;
    case RKind::floating:
      return Kind::number;
    case RKind::model:
      return Kind::model;
    case RKind::optimizer:
      return Kind::optimizer;
    case RKind::record:
      return Kind::batch;
    case RKind::dataset:
    case RKind::batches:
      return Kind::dataset;
    case RKind::tuple:
      return Kind::tuple;
    default:
      return Kind::empty;
  }
}

std::string Value::type() const {
  return state_ ? api::value_type(*state_, *state_->current().value) : "nothing";
}

std::string Value::label() const {
  return state_ ? state_->label : "";
}

std::uint64_t Value::version() const {
  return state_ ? state_->current().number : 0;
}

Tensor Value::tensor() const {
  if (!state_) return {};
  const auto v = state_->current().value;
  if (v->kind == RKind::tensor) return shared_out(v->tensor);
  if (v->kind == RKind::integer || v->kind == RKind::floating)
    return shared_out(runtime::as_tensor(*v));
  return {};
}

double Value::number() const {
  if (!state_) return 0;
  const auto v = state_->current().value;
  const bool one = v->kind == RKind::integer || v->kind == RKind::floating ||
                   (v->kind == RKind::tensor && v->tensor.size() == 1);
  return one ? runtime::as_double(*v) : 0;
}

std::map<std::string, Tensor> Value::tensors() const {
  std::map<std::string, Tensor> out;
  if (!state_) return out;
  const auto v = state_->current().value;
  for (const auto& [path, t] : v->fields) out[path] = shared_out(t);
  if (v->data)  // every chosen example, each column gathered once
    for (const auto& [name, column] : v->data->batch(0, v->data->size()))
      out[name] = shared_out(column);
  return out;
}

std::vector<std::string> Value::paths() const {
  std::vector<std::string> out;
  if (!state_) return out;
  const auto v = state_->current().value;
  for (const auto& [path, t] : v->fields) out.push_back(path);
  if (v->data) {
    out.insert(out.end(), v->data->names.begin(), v->data->names.end());
    std::sort(out.begin(), out.end());  // tensors()'s order: by name
  }
  return out;
}

std::vector<Value> Value::items() const {
  std::vector<Value> out;
  if (!state_) return out;
  const auto v = state_->current().value;
  for (const auto& item : v->items)
    out.push_back(ValueAccess::make(item, item.text, {}, state_->label));
  return out;
}

}  // namespace ss
