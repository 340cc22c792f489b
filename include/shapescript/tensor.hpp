// Tensors crossing the embedding boundary: an element type, a shape, and
// the elements, either owned (row-major) or borrowed from the host, in
// row-major order or with the host's strides.
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
  // A strided view, not copied: element (i, j, ...) is at
  // data[i*strides[0] + j*strides[1] + ...], strides counted in elements
  // (0 repeats an element; negative ones walk backwards from data). A
  // transposed matrix, a column, every other row: read in place. Strides
  // not one per axis make calls with it fail with E1603.
  static Tensor view(const float* data, std::vector<std::int64_t> shape,
                     std::vector<std::int64_t> strides);
  static Tensor view(const std::int32_t* data, std::vector<std::int64_t> shape,
                     std::vector<std::int64_t> strides);
  // Owned copies.
  static Tensor of(std::vector<float> values, std::vector<std::int64_t> shape);
  static Tensor of(std::vector<std::int32_t> values, std::vector<std::int64_t> shape);
  static Tensor scalar(float value) { return of(std::vector<float>{value}, {}); }
  // An owned copy of raw elements of any dtype (bool: one byte each).
  static Tensor copy(DType dtype, const void* data, std::vector<std::int64_t> shape);
  // A view that keeps `owner` alive as long as the tensor (or a copy of
  // it) lives: memory the host (or the library) shares rather than copies.
  static Tensor shared(DType dtype, const void* data, std::vector<std::int64_t> shape,
                       std::vector<std::int64_t> strides, std::shared_ptr<const void> owner);

  DType dtype() const { return dtype_; }
  const std::vector<std::int64_t>& shape() const { return shape_; }
  std::int64_t size() const;  // the number of elements
  // In elements, one per axis: row-major unless a strided view gave others.
  const std::vector<std::int64_t>& strides() const { return strides_; }
  const void* data() const { return data_; }  // the element at index 0 of every axis
  bool empty() const { return data_ == nullptr && shape_.empty(); }

  // The elements as floats (integers and bools converted), in row-major
  // order of the shape; empty when the strides don't fit the shape.
  std::vector<float> to_floats() const;

 private:
  // A view of the host's memory, whatever its element type.
  static Tensor borrowed(DType dtype, const void* data, std::vector<std::int64_t> shape,
                         std::vector<std::int64_t> strides);

  DType dtype_ = DType::f32;
  std::vector<std::int64_t> shape_;
  std::vector<std::int64_t> strides_;
  std::shared_ptr<const void> owner_;  // null for a view
  const void* data_ = nullptr;
};

}  // namespace ss
