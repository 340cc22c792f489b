// Tensors crossing the embedding boundary: an element type, a shape, and
// the elements in row-major order, either owned or borrowed from the host.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "shapescript/export.hpp"

namespace ss {

enum class DType { f32, bf16, f16, i32, boolean };

class SS_API Tensor {
 public:
  Tensor() = default;

  // A view of host memory, not copied. The host keeps the memory alive and
  // unchanged while the library uses the tensor (during a call).
  static Tensor view(const float* data, std::vector<std::int64_t> shape);
  static Tensor view(const std::int32_t* data, std::vector<std::int64_t> shape);
  // Owned copies.
  static Tensor of(std::vector<float> values, std::vector<std::int64_t> shape);
  static Tensor of(std::vector<std::int32_t> values, std::vector<std::int64_t> shape);
  static Tensor scalar(float value) { return of(std::vector<float>{value}, {}); }
  // An owned copy of raw elements of any dtype (bool: one byte each).
  static Tensor copy(DType dtype, const void* data, std::vector<std::int64_t> shape);

  DType dtype() const { return dtype_; }
  const std::vector<std::int64_t>& shape() const { return shape_; }
  std::int64_t size() const;  // the number of elements
  const void* data() const { return data_; }
  bool empty() const { return data_ == nullptr && shape_.empty(); }

  // The elements as floats (integers and bools converted), row-major.
  std::vector<float> to_floats() const;

 private:
  DType dtype_ = DType::f32;
  std::vector<std::int64_t> shape_;
  std::shared_ptr<const void> owner_;  // null for a view
  const void* data_ = nullptr;
};

}  // namespace ss
