// Values the library owns: a model, an optimiser, a batch, a dataset, a
// tensor or a number, made, loaded and called through a Module
// (module.hpp). A Value is a handle: copying it copies the handle, and
// both copies see what a `mut` call does to it (Module::copy makes an
// independent value). Each change makes a new version; a reader holds the
// version current when its call started, whole, however long it runs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "shapescript/export.hpp"
#include "shapescript/tensor.hpp"

namespace ss {

class SS_API Value {
 public:
  enum class Kind { empty, tensor, integer, number, model, optimizer, batch, dataset, tuple };

  Value() = default;

  Kind kind() const;
  bool empty() const { return kind() == Kind::empty; }
  explicit operator bool() const { return !empty(); }
  // The type as the program writes it: "Mlp", "AdamW[Mlp]", "[b] Digit",
  // "Dataset[Digit]", "[2 10]", "int", "float".
  std::string type() const;
  // Where it came from, for reports: "Mlp(seed=0)", "Mlp from m.safetensors".
  std::string label() const;
  // 1 when made; one more for each call that changed it in place.
  std::uint64_t version() const;
  // The same handle (not merely equal contents).
  bool same(const Value& other) const { return state_ == other.state_; }

  // Read back on demand. A tensor value's elements, or a number as a
  // scalar tensor; empty for other kinds. The tensor shares the value's
  // current version, which never changes (a later `mut` call makes a new
  // one), so nothing is copied on the CPU.
  Tensor tensor() const;
  // A number's value (a scalar tensor's element); 0 for other kinds.
  double number() const;
  // A model's parameters, an optimiser's settings and state, a batch's
  // fields, a dataset's columns, by path ("fc1.weight", "exp_avg.fc1.weight").
  std::map<std::string, Tensor> tensors() const;
  // Those tensors' paths alone, in the same order, reading nothing.
  std::vector<std::string> paths() const;
  // A tuple's items (what a function returning `(a, b)` gave).
  std::vector<Value> items() const;

  struct State;

 private:
  friend struct ValueAccess;
  std::shared_ptr<State> state_;
};

// One argument of Module::call: a value (read, or changed in place when
// given as `ss::mut(v)`), a host tensor (read at the call, every call), or
// a number.
class SS_API Arg {
 public:
  Arg(Value v) : value_(std::move(v)), holds_(Holds::value) {}
  Arg(Tensor t) : tensor_(std::move(t)), holds_(Holds::tensor) {}
  Arg(double x) : number_(x), holds_(Holds::number) {}
  Arg(int x) : number_(x), integer_(true), holds_(Holds::number) {}
  Arg(std::int64_t x) : number_(static_cast<double>(x)), integer_(true), holds_(Holds::number) {}

  // This argument made the host tensor `t` in place: the memory its last
  // tensor's shape took is reused, so a host that keeps its argument list
  // and gives the same rank again allocates nothing.
  void set_tensor(const Tensor& t) {
    value_ = Value();
    tensor_ = t;
    number_ = 0;
    integer_ = mut_ = false;
    holds_ = Holds::tensor;
  }

  enum class Holds { value, tensor, number };
  Holds holds() const { return holds_; }
  const Value& value() const { return value_; }
  const Tensor& tensor() const { return tensor_; }
  double number() const { return number_; }
  bool integer() const { return integer_; }
  bool is_mut() const { return mut_; }

 private:
  friend Arg mut(Value v);
  Value value_;
  Tensor tensor_;
  double number_ = 0;
  bool integer_ = false;
  bool mut_ = false;
  Holds holds_;
};

// A value a call may change in place, for a `mut` parameter: the handle's
// new version is published when the call ends (all of it, or nothing when
// the call fails).
inline Arg mut(Value v) {
  Arg a(std::move(v));
  a.mut_ = true;
  return a;
}

// Module::make's options for a model: the seed its initialisers draw with
// (`Mlp(seed=0)`).
struct MakeOptions {
  std::uint64_t seed = 0;
};

// Module::load's options. `names` renames the file's tensors, prefix to
// prefix, before they are matched to the model's parameters: a PyTorch
// `nn.Sequential` state dict's {"0.": "fc1.", "2.": "fc2."}. The longest
// prefix that fits a name wins; a name no prefix fits keeps its name.
struct ValueLoadOptions {
  std::map<std::string, std::string> names;
};

}  // namespace ss
