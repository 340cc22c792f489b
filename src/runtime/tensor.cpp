#include "runtime/tensor.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ss::runtime {

std::int64_t element_count(const Shape& shape) {
  std::int64_t n = 1;
  for (const auto d : shape) n *= d;
  return n;
}

std::string shape_str(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? " " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::shared_ptr<Buffer> Buffer::allocate(std::size_t bytes) {
  const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* data = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (!data) throw std::bad_alloc();
  std::memset(data, 0, rounded == 0 ? kAlignment : rounded);
  return std::shared_ptr<Buffer>(new Buffer(data, bytes, true));
}

std::shared_ptr<Buffer> Buffer::borrow(void* data, std::size_t bytes) {
  return std::shared_ptr<Buffer>(new Buffer(data, bytes, false));
}

Buffer::~Buffer() {
  if (owned_) std::free(data_);
}

Tensor Tensor::zeros(DType dtype, Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.buffer_ = Buffer::allocate(static_cast<std::size_t>(t.size()) * dtype_size(dtype));
  return t;
}

Tensor Tensor::borrow(void* data, DType dtype, Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.buffer_ = Buffer::borrow(data, static_cast<std::size_t>(t.size()) * dtype_size(dtype));
  return t;
}

Tensor Tensor::from_values(DType dtype, Shape shape, const std::vector<double>& values) {
  Tensor t = zeros(dtype, std::move(shape));
  for (std::int64_t i = 0; i < t.size() && i < static_cast<std::int64_t>(values.size()); ++i)
    t.set(i, values[i]);
  return t;
}

void* Tensor::raw() const {
  return buffer_ ? buffer_->data() : nullptr;
}

double Tensor::get(std::int64_t i) const {
  const auto* p = static_cast<const unsigned char*>(raw());
  switch (dtype_) {
    case DType::f32:
      return reinterpret_cast<const float*>(p)[i];
    case DType::bf16:
      return bfloat_to_float(reinterpret_cast<const std::uint16_t*>(p)[i]);
    case DType::f16:
      return half_to_float(reinterpret_cast<const std::uint16_t*>(p)[i]);
    case DType::i32:
      return reinterpret_cast<const std::int32_t*>(p)[i];
    case DType::boolean:
      return p[i] ? 1.0 : 0.0;
  }
  return 0;
}

void Tensor::set(std::int64_t i, double value) {
  auto* p = static_cast<unsigned char*>(raw());
  switch (dtype_) {
    case DType::f32:
      reinterpret_cast<float*>(p)[i] = static_cast<float>(value);
      return;
    case DType::bf16:
      reinterpret_cast<std::uint16_t*>(p)[i] = float_to_bfloat(static_cast<float>(value));
      return;
    case DType::f16:
      reinterpret_cast<std::uint16_t*>(p)[i] = float_to_half(static_cast<float>(value));
      return;
    case DType::i32: {
      const double clamped =
          std::isnan(value) ? 0.0 : std::fmax(-2147483648.0, std::fmin(2147483647.0, value));
      reinterpret_cast<std::int32_t*>(p)[i] = static_cast<std::int32_t>(clamped);
      return;
    }
    case DType::boolean:
      p[i] = value != 0.0 ? 1 : 0;
      return;
  }
}

std::vector<double> Tensor::values() const {
  std::vector<double> out(static_cast<std::size_t>(size()));
  for (std::int64_t i = 0; i < size(); ++i) out[static_cast<std::size_t>(i)] = get(i);
  return out;
}

}  // namespace ss::runtime
