#include <cstring>

#include "runtime/core/dtype.hpp"
#include "runtime/core/tensor.hpp"
#include "shapescript/tensor.hpp"

namespace ss {
namespace {

std::size_t element_size(DType d) {
  switch (d) {
    case DType::f32:
    case DType::i32:
      return 4;
    case DType::bf16:
    case DType::f16:
      return 2;
    case DType::boolean:
      return 1;
  }
  return 4;
}

}  // namespace

std::int64_t Tensor::size() const {
  std::int64_t n = 1;
  for (const auto d : shape_) n *= d;
  return n;
}

Tensor Tensor::view(const float* data, std::vector<std::int64_t> shape) {
  auto strides = runtime::row_major_strides(shape);
  return view(data, std::move(shape), std::move(strides));
}

Tensor Tensor::view(const std::int32_t* data, std::vector<std::int64_t> shape) {
  auto strides = runtime::row_major_strides(shape);
  return view(data, std::move(shape), std::move(strides));
}

Tensor Tensor::view(const float* data, std::vector<std::int64_t> shape,
                    std::vector<std::int64_t> strides) {
  return borrowed(DType::f32, data, std::move(shape), std::move(strides));
}

Tensor Tensor::view(const std::int32_t* data, std::vector<std::int64_t> shape,
                    std::vector<std::int64_t> strides) {
  return borrowed(DType::i32, data, std::move(shape), std::move(strides));
}

Tensor Tensor::borrowed(DType dtype, const void* data, std::vector<std::int64_t> shape,
                        std::vector<std::int64_t> strides) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.data_ = data;
  return t;
}

Tensor Tensor::shared(DType dtype, const void* data, std::vector<std::int64_t> shape,
                      std::vector<std::int64_t> strides, std::shared_ptr<const void> owner) {
  Tensor t = borrowed(dtype, data, std::move(shape), std::move(strides));
  t.owner_ = std::move(owner);
  return t;
}

Tensor Tensor::copy(DType dtype, const void* data, std::vector<std::int64_t> shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = runtime::row_major_strides(t.shape_);
  const std::size_t bytes = static_cast<std::size_t>(t.size()) * element_size(dtype);
  auto owned = std::shared_ptr<unsigned char[]>(new unsigned char[bytes == 0 ? 1 : bytes]);
  if (bytes) std::memcpy(owned.get(), data, bytes);
  t.data_ = owned.get();
  t.owner_ = std::shared_ptr<const void>(owned, owned.get());
  return t;
}

Tensor Tensor::of(std::vector<float> values, std::vector<std::int64_t> shape) {
  return copy(DType::f32, values.data(), std::move(shape));
}

Tensor Tensor::of(std::vector<std::int32_t> values, std::vector<std::int64_t> shape) {
  return copy(DType::i32, values.data(), std::move(shape));
}

std::vector<float> Tensor::to_floats() const {
  // Read through the runtime's conversions, without copying the data in.
  if (strides_.size() != shape_.size()) return {};
  const auto view = runtime::Tensor::borrow_strided(
      const_cast<void*>(data_), static_cast<runtime::DType>(dtype_), shape_, strides_);
  std::vector<float> out(static_cast<std::size_t>(size()));
  for (std::int64_t i = 0; i < size(); ++i)
    out[static_cast<std::size_t>(i)] = static_cast<float>(view.get(i));
  return out;
}

}  // namespace ss
