#include "runtime/core/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "runtime/core/buffer_pool.hpp"
#include "runtime/core/frame_memory.hpp"
#include "runtime/core/out_of_memory.hpp"

namespace ss::runtime {

std::int64_t element_count(const Shape& shape) {
  std::int64_t n = 1;
  for (const auto d : shape)
    if (__builtin_mul_overflow(n, d, &n)) throw OutOfMemory(static_cast<std::size_t>(-1));
  return n;
}

Strides row_major_strides(const Shape& shape) {
  Strides strides(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;) strides[k - 1] = strides[k] * shape[k];
  return strides;
}

namespace {

// Whether strides walk shape's elements in row-major order without gaps:
// an axis of size 1 whatever its stride (a batch of one, a kept axis).
bool row_major(const Shape& shape, const Strides& strides) {
  if (element_count(shape) == 0) return true;
  std::int64_t expect = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] == 1) continue;
    if (strides[k] != expect) return false;
    expect *= shape[k];
  }
  return true;
}

}  // namespace

std::string shape_str(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? " " : "") + std::to_string(shape[i]);
  return out + "]";
}

namespace {
thread_local std::shared_ptr<MemoryBudget> t_budget;  // this thread's open scope's
}  // namespace

MemoryBudget::Scope::Scope(std::shared_ptr<MemoryBudget> budget) : previous_(t_budget) {
  t_budget = std::move(budget);
}

MemoryBudget::Scope::~Scope() {
  t_budget = std::move(previous_);
}

void MemoryBudget::hold(std::optional<Scope>& scope, std::int64_t limit) {
  if (limit <= 0) return;
  auto budget = std::make_shared<MemoryBudget>();
  budget->limit = limit;
  scope.emplace(std::move(budget));
}

MemoryLimitError::MemoryLimitError(std::int64_t w, std::int64_t u, std::int64_t l)
    : std::runtime_error("a tensor of " + std::to_string(w) +
                         " bytes would take the run's memory to " + std::to_string(u + w) +
                         " bytes, past the host's limit of " + std::to_string(l)),
      wanted(w),
      used(u),
      limit(l) {}

std::shared_ptr<Buffer> Buffer::allocate(std::size_t bytes, bool zeroed) {
  const std::size_t rounded =
      std::max<std::size_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
  const std::shared_ptr<MemoryBudget> budget = t_budget;
  if (!budget)
    if (auto planned = FrameMemory::take(bytes, zeroed)) return planned;
  if (budget) {
    const auto size = static_cast<std::int64_t>(rounded);
    const std::int64_t used = budget->used.fetch_add(size) + size;
    if (budget->limit > 0 && used > budget->limit) {
      budget->used.fetch_sub(size);
      throw MemoryLimitError(size, used - size, budget->limit);
    }
    std::int64_t peak = budget->peak.load();
    while (used > peak && !budget->peak.compare_exchange_weak(peak, used)) {
    }
  }
  void* data = nullptr;
  try {
    data = BufferPool::take(rounded, kAlignment);  // OutOfMemory when the machine refuses
  } catch (...) {
    if (budget) budget->used.fetch_sub(static_cast<std::int64_t>(rounded));
    throw;
  }
  if (zeroed) std::memset(data, 0, rounded);
  std::shared_ptr<Buffer> buffer;
  try {
    buffer = make(data, bytes, rounded, true);
  } catch (...) {
    BufferPool::give(data, rounded);
    if (budget) budget->used.fetch_sub(static_cast<std::int64_t>(rounded));
    throw;
  }
  // From here the buffer owns its memory and its share of the budget: its
  // destructor gives both back if recording it fails.
  buffer->budget_ = budget;
  if (!budget) FrameMemory::made(*buffer, bytes);
  return buffer;
}

std::shared_ptr<Buffer> Buffer::borrow(void* data, std::size_t bytes) {
  return make(data, bytes, bytes, false);
}

std::shared_ptr<Buffer> Buffer::make(void* data, std::size_t bytes, std::size_t capacity,
                                     bool owned) {
  struct Made : Buffer {  // make_shared needs a public constructor
    Made(void* d, std::size_t b, std::size_t c, bool o) : Buffer(d, b, c, o) {}
  };
  return std::make_shared<Made>(data, bytes, capacity, owned);
}

std::shared_ptr<Buffer> Buffer::deferred(std::size_t bytes, std::function<void(void*)> fetch,
                                         std::shared_ptr<const void> twin, bool refetchable) {
  auto buffer = allocate(bytes, false);
  buffer->refetchable_ = refetchable;
  buffer->fetch_ = std::move(fetch);
  buffer->twin_ = std::move(twin);
  buffer->pending_.store(true, std::memory_order_release);
  return buffer;
}

void Buffer::fetch() const {
  std::lock_guard lock(fetch_mutex_);
  if (!pending_.load(std::memory_order_relaxed)) return;  // another thread fetched it
  fetch_(data_);
  if (!refetchable_) {
    fetch_ = nullptr;
    twin_.reset();
  }
  pending_.store(false, std::memory_order_release);
}

void Buffer::settle() {
  std::lock_guard lock(fetch_mutex_);
  refetchable_ = false;
  if (pending_.load(std::memory_order_relaxed)) return;  // its fetch drops them
  fetch_ = nullptr;
  twin_.reset();
}

void Buffer::rearm() {
  if (!refetchable_) throw std::logic_error("rearming a buffer that isn't refetchable");
  recycle();
  pending_.store(true, std::memory_order_release);
}

std::shared_ptr<const void> Buffer::twin() const {
  if (!pending_.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard lock(fetch_mutex_);
  return twin_;
}

std::shared_ptr<Buffer> Buffer::within(std::shared_ptr<const void> arena, void* data,
                                       std::size_t bytes, std::size_t capacity) {
  auto buffer = make(data, bytes, capacity, true);
  buffer->arena_ = std::move(arena);
  return buffer;
}

void Buffer::recycle() {
  frozen_.store(false, std::memory_order_relaxed);
  if (!derived_.empty()) {
    std::lock_guard lock(derived_mutex_);
    derived_.clear();
  }
}

Buffer::~Buffer() {
  if (frame_slot_ >= 0) FrameMemory::freed(frame_, frame_slot_);
  if (budget_) budget_->used.fetch_sub(static_cast<std::int64_t>(capacity_));
  if (owned_ && !arena_) BufferPool::give(data_, capacity_);
}

Tensor Tensor::zeros(DType dtype, Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = row_major_strides(t.shape_);
  t.buffer_ = Buffer::allocate(checked_bytes(t.size(), dtype_size(dtype)));
  return t;
}

Tensor Tensor::uninitialized(DType dtype, Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = row_major_strides(t.shape_);
  t.buffer_ = Buffer::allocate(checked_bytes(t.size(), dtype_size(dtype)), false);
  return t;
}

Tensor Tensor::shaped(DType dtype, Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = row_major_strides(t.shape_);
  return t;
}

Tensor Tensor::over(std::shared_ptr<Buffer> buffer, DType dtype, Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = row_major_strides(t.shape_);
  if (!buffer || buffer->bytes() < checked_bytes(t.size(), dtype_size(dtype)))
    throw std::invalid_argument("a tensor over a buffer smaller than it");
  t.buffer_ = std::move(buffer);
  return t;
}

Tensor Tensor::borrow(void* data, DType dtype, Shape shape) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = row_major_strides(t.shape_);
  t.buffer_ = Buffer::borrow(data, checked_bytes(t.size(), dtype_size(dtype)));
  return t;
}

Tensor Tensor::borrow_strided(void* data, DType dtype, Shape shape, Strides strides) {
  if (strides.size() != shape.size())
    throw std::invalid_argument("a view needs one stride per axis");
  Tensor t = borrow(data, dtype, std::move(shape));
  t.strides_ = std::move(strides);
  t.contiguous_ = row_major(t.shape_, t.strides_);
  return t;
}

bool Tensor::reborrow(void* data, DType dtype, const Shape& shape, const Strides& strides) {
  if (!buffer_ || buffer_->owned() || buffer_.use_count() != 1 || buffer_->pending_ ||
      strides.size() != shape.size())
    return false;
  buffer_->recycle();
  dtype_ = dtype;
  shape_ = shape;
  strides_ = strides;
  offset_ = 0;
  contiguous_ = row_major(shape_, strides_);
  buffer_->data_ = data;
  buffer_->bytes_ = buffer_->capacity_ = checked_bytes(size(), dtype_size(dtype));
  return true;
}

bool Tensor::contiguous() const {
  return contiguous_;
}

std::int64_t Tensor::physical(std::int64_t flat) const {
  if (contiguous_) return flat;
  std::int64_t at = 0;
  for (std::size_t k = shape_.size(); k-- > 0;) {
    const std::int64_t n = shape_[k];
    if (n == 0) return 0;
    at += (flat % n) * strides_[k];
    flat /= n;
  }
  return at;
}

namespace {

std::size_t checked_axis(const Tensor& t, std::int64_t axis) {
  if (axis < 0 || axis >= t.rank())
    throw std::out_of_range("axis " + std::to_string(axis) + " of a rank-" +
                            std::to_string(t.rank()) + " tensor");
  return static_cast<std::size_t>(axis);
}

}  // namespace

Tensor Tensor::slice(std::int64_t axis, std::int64_t start, std::int64_t end) const {
  const std::size_t k = checked_axis(*this, axis);
  if (start < 0 || end > shape_[k] || start > end)
    throw std::out_of_range("slice " + std::to_string(start) + ":" + std::to_string(end) +
                            " of an axis of size " + std::to_string(shape_[k]));
  Tensor t = *this;
  t.shape_[k] = end - start;
  if (t.shape_[k] > 0) t.offset_ += start * strides_[k];
  t.contiguous_ = row_major(t.shape_, t.strides_);
  return t;
}

Tensor Tensor::select(std::int64_t axis, std::int64_t index) const {
  const std::size_t k = checked_axis(*this, axis);
  if (index < 0 || index >= shape_[k])
    throw std::out_of_range("index " + std::to_string(index) + " of an axis of size " +
                            std::to_string(shape_[k]));
  Tensor t = *this;
  t.offset_ += index * strides_[k];
  t.shape_.erase(t.shape_.begin() + static_cast<std::ptrdiff_t>(k));
  t.strides_.erase(t.strides_.begin() + static_cast<std::ptrdiff_t>(k));
  t.contiguous_ = row_major(t.shape_, t.strides_);
  return t;
}

Tensor Tensor::permute(const std::vector<std::int64_t>& order) const {
  if (order.size() != shape_.size()) throw std::out_of_range("a permutation names every axis");
  Shape seen(order.size(), 0);  // flags (no heap)
  Tensor t = *this;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::size_t from = checked_axis(*this, order[i]);
    if (seen[from]) throw std::out_of_range("a permutation names an axis twice");
    seen[from] = true;
    t.shape_[i] = shape_[from];
    t.strides_[i] = strides_[from];
  }
  t.contiguous_ = row_major(t.shape_, t.strides_);
  return t;
}

Tensor Tensor::view(std::int64_t offset, Shape shape, Strides strides) const {
  Tensor t = *this;
  t.offset_ += offset;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.contiguous_ = row_major(t.shape_, t.strides_);
  return t;
}

Tensor Tensor::reshape(Shape shape) const {
  if (!contiguous_ || element_count(shape) != size())
    throw std::logic_error("reshape of " + shape_str(shape_) + " to " + shape_str(shape));
  Tensor t = *this;
  t.shape_ = std::move(shape);
  t.strides_ = row_major_strides(t.shape_);
  t.contiguous_ = true;
  return t;
}

namespace {

// A view's axes with those of size 1 dropped and neighbours that walk as
// one merged (an axis whose stride is the next one's times its size), so a
// copy runs over few, long rows.
void collapse(Shape& shape, Strides& strides) {
  Shape s;
  Strides t;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!s.empty() && t.back() == strides[d] * shape[d]) {
      s.back() *= shape[d];
      t.back() = strides[d];
    } else {
      s.push_back(shape[d]);
      t.push_back(strides[d]);
    }
  }
  if (s.empty()) {
    s.push_back(1);
    t.push_back(1);
  }
  shape = s;
  strides = t;
}

// Copies a strided view's elements in row-major order: the last axis a row
// at a time (a memcpy where it is contiguous), an odometer over the others
// (no division per element). Where the last axis is strided but another
// axis is contiguous (a transpose), tiles of the two are copied instead,
// so both sides are read and written a cache line at a time.
template <typename T>
void copy_rows(const T* from, T* to, Shape shape, Strides strides) {
  collapse(shape, strides);
  const std::size_t rank = shape.size();
  const std::int64_t inner = shape[rank - 1];
  const std::int64_t step = strides[rank - 1];
  std::size_t across = rank;  // the contiguous axis of a transpose, if any
  for (std::size_t d = 0; step != 1 && d + 1 < rank; ++d)
    if (strides[d] == 1) across = d;
  if (across < rank) {
    // Out's stride along `across`; the odometer walks the other outer axes.
    std::int64_t out_across = 1;
    for (std::size_t d = across + 1; d < rank; ++d) out_across *= shape[d];
    const std::int64_t rows = shape[across];
    Shape index(rank, 0);
    std::int64_t in_at = 0, out_at = 0;
    const std::int64_t blocks = element_count(shape) / (rows * inner);
    constexpr std::int64_t kTile = 16;
    for (std::int64_t b = 0; b < blocks; ++b) {
      for (std::int64_t r0 = 0; r0 < rows; r0 += kTile)
        for (std::int64_t c0 = 0; c0 < inner; c0 += kTile) {
          const std::int64_t r1 = std::min(rows, r0 + kTile), c1 = std::min(inner, c0 + kTile);
          for (std::int64_t c = c0; c < c1; ++c)
            for (std::int64_t r = r0; r < r1; ++r)
              to[out_at + r * out_across + c] = from[in_at + r + c * step];
        }
      // The next block: every outer axis but `across` and the last.
      for (std::size_t d = rank - 1; d-- > 0;) {
        if (d == across) continue;
        std::int64_t out_stride = 1;
        for (std::size_t e = d + 1; e < rank; ++e) out_stride *= shape[e];
        in_at += strides[d];
        out_at += out_stride;
        if (++index[d] < shape[d]) break;
        in_at -= strides[d] * shape[d];
        out_at -= out_stride * shape[d];
        index[d] = 0;
      }
    }
    return;
  }
  const std::int64_t rows = inner ? element_count(shape) / inner : 0;
  Shape index(rank, 0);
  std::int64_t offset = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* row = from + offset;
    if (step == 1) {
      std::memcpy(to, row, static_cast<std::size_t>(inner) * sizeof(T));
    } else {
      for (std::int64_t j = 0; j < inner; ++j) to[j] = row[j * step];
    }
    to += inner;
    for (std::size_t d = rank < 2 ? 0 : rank - 1; d-- > 0;) {
      offset += strides[d];
      if (++index[d] < shape[d]) break;
      offset -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
}

}  // namespace

Tensor Tensor::clone() const {
  if (!contiguous_) return compact();
  Tensor out = uninitialized(dtype_, shape_);
  std::memcpy(out.raw(), raw(), static_cast<std::size_t>(size()) * dtype_size(dtype_));
  return out;
}

Tensor Tensor::compact() const {
  if (contiguous_) return *this;
  Tensor out = uninitialized(dtype_, shape_);
  switch (dtype_size(dtype_)) {
    case 4:
      copy_rows(static_cast<const std::uint32_t*>(raw()), static_cast<std::uint32_t*>(out.raw()),
                shape_, strides_);
      break;
    case 2:
      copy_rows(static_cast<const std::uint16_t*>(raw()), static_cast<std::uint16_t*>(out.raw()),
                shape_, strides_);
      break;
    default:
      copy_rows(static_cast<const std::uint8_t*>(raw()), static_cast<std::uint8_t*>(out.raw()),
                shape_, strides_);
  }
  return out;
}

Tensor Tensor::from_values(DType dtype, Shape shape, const std::vector<double>& values) {
  Tensor t = zeros(dtype, std::move(shape));
  if (dtype == DType::f32 && static_cast<std::int64_t>(values.size()) >= t.size()) {
    auto* p = static_cast<float*>(t.raw());
    for (std::int64_t i = 0; i < t.size(); ++i)
      p[i] = static_cast<float>(values[static_cast<std::size_t>(i)]);
    return t;
  }
  for (std::int64_t i = 0; i < t.size() && i < static_cast<std::int64_t>(values.size()); ++i)
    t.set(i, values[i]);
  return t;
}

void* Tensor::raw() const {
  if (!buffer_) return nullptr;
  return static_cast<unsigned char*>(buffer_->data()) +
         offset_ * static_cast<std::int64_t>(dtype_size(dtype_));
}

double Tensor::get_any(std::int64_t i) const {
  i = physical(i);
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

void Tensor::set_any(std::int64_t i, double value) {
  i = physical(i);
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
  if (contiguous_ && dtype_ == DType::f32) {  // the common case, without a switch per element
    const auto* p = static_cast<const float*>(raw());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = p[i];
    return out;
  }
  for (std::int64_t i = 0; i < size(); ++i) out[static_cast<std::size_t>(i)] = get(i);
  return out;
}

Strides broadcast_strides(const Tensor& t, std::size_t rank) {
  Strides s(rank, 0);
  const std::size_t lead = rank - t.shape().size();
  for (std::size_t d = 0; d < t.shape().size(); ++d)
    if (t.shape()[d] != 1) s[lead + d] = t.strides()[d];
  return s;
}

}  // namespace ss::runtime
