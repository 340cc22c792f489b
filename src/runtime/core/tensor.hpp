// Tensors of the runtime: an element type, a shape, strides and a shared
// buffer, 64-byte aligned when owned. A new tensor is contiguous, row-major;
// views (a slice, one index of an axis, a permutation of the axes, host
// memory with the host's strides) share their buffer and read through their
// strides, so they cost no copy. A tensor may borrow host memory; then the
// host keeps the memory alive.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/core/dtype.hpp"
#include "runtime/core/small_dims.hpp"

namespace ss::runtime {

using Shape = SmallDims;
using Strides = SmallDims;  // in elements, per axis; may be 0 or negative

// Checked: a count no int64 holds throws OutOfMemory (out_of_memory.hpp).
std::int64_t element_count(const Shape& shape);
Strides row_major_strides(const Shape& shape);
std::string shape_str(const Shape& shape);  // "[2 3]"

// A limit on the tensor memory one run may hold (LoadOptions::
// memory_limit): while a MemoryBudget::Scope is open on a thread, every
// buffer that thread allocates is charged to the budget until it is freed,
// and one that would pass the limit throws MemoryLimitError instead.
struct MemoryBudget {
  std::int64_t limit = 0;  // bytes
  std::atomic<std::int64_t> used{0};
  std::atomic<std::int64_t> peak{0};

  class Scope {
   public:
    explicit Scope(std::shared_ptr<MemoryBudget> budget);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    std::shared_ptr<MemoryBudget> previous_;
  };

  // Opens a budget of `limit` bytes in `scope`, held while `scope` lives;
  // none for a limit of 0 (no limit).
  static void hold(std::optional<Scope>& scope, std::int64_t limit);
};

struct MemoryLimitError : std::runtime_error {
  MemoryLimitError(std::int64_t wanted, std::int64_t used, std::int64_t limit);
  std::int64_t wanted, used, limit;
};

class FrameMemory;

// Memory a tensor's elements live in: owned (aligned, from the buffer
// pool, zeroed unless asked not to be) or borrowed.
//
// An owned buffer may be deferred: its contents still live elsewhere (a
// GPU's memory) and `fetch` copies them in on the first access through
// data(), from any thread. Until then `twin()` gives that other copy, so
// the executor that made it can take the value back without a copy; once
// fetched (the host may then write it) the twin is dropped.
class Buffer {
 public:
  static constexpr std::size_t kAlignment = 64;
  static std::shared_ptr<Buffer> allocate(std::size_t bytes, bool zeroed = true);
  static std::shared_ptr<Buffer> borrow(void* data, std::size_t bytes);
  // A buffer whose contents `fetch` writes on the first read (a device
  // result's copy back); `twin` is where they live meanwhile. A refetchable
  // one keeps both after fetching, so rearm() can make it pending again.
  static std::shared_ptr<Buffer> deferred(std::size_t bytes, std::function<void(void*)> fetch,
                                          std::shared_ptr<const void> twin,
                                          bool refetchable = false);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const {
    if (pending_.load(std::memory_order_acquire)) [[unlikely]]
      fetch();
    return data_;
  }
  std::size_t bytes() const { return bytes_; }
  bool owned() const { return owned_; }
  // The copy a deferred buffer's contents still live in; null once fetched.
  std::shared_ptr<const void> twin() const;
  // A refetchable deferred buffer that nobody else holds, pending again:
  // its twin has new contents (a replayed CUDA graph's result, handed out
  // anew), read at the next access. Not frozen, nothing derived.
  void rearm();
  // A refetchable buffer let go of by whoever rearmed it: plain deferred
  // from now on, so once fetched it drops its fetch and twin (and the
  // device memory they keep alive), at once if it was fetched already.
  void settle();

  // Frozen: nothing writes it any more (it holds a published version of a
  // value the host owns, api/value_state.hpp), so executors may keep what
  // they derive from its contents (packed GEMM panels) with it, made once
  // and dropped with the buffer.
  void freeze() { frozen_.store(true, std::memory_order_release); }
  bool frozen() const { return frozen_.load(std::memory_order_acquire); }
  // The derived form `key` names, made by `make` on the first ask; null
  // for a buffer that isn't frozen. The key says what was derived and from
  // where in the buffer (an offset, strides, sizes, a kernel).
  using DerivedKey = std::array<std::int64_t, 6>;
  template <typename Make>  // Make: () -> std::shared_ptr<const void>
  std::shared_ptr<const void> derived(const DerivedKey& key, Make&& make) const {
    if (!frozen()) return nullptr;
    std::lock_guard lock(derived_mutex_);
    for (const auto& [k, form] : derived_)
      if (k == key) return form;
    std::shared_ptr<const void> form = make();
    if (form) derived_.emplace_back(key, form);
    return form;
  }

 private:
  friend class FrameMemory;
  friend class Tensor;
  Buffer(void* data, std::size_t bytes, std::size_t capacity, bool owned)
      : data_(data), bytes_(bytes), capacity_(capacity), owned_(owned) {}
  void fetch() const;
  // A frame's buffer (runtime/core/frame_memory.hpp): its memory is part of
  // `arena`, kept alive with it. recycle() readies one nobody else holds
  // for its next use: not frozen, nothing derived.
  static std::shared_ptr<Buffer> within(std::shared_ptr<const void> arena, void* data,
                                        std::size_t bytes, std::size_t capacity);
  void recycle();
  // The buffer and its reference count in one allocation.
  static std::shared_ptr<Buffer> make(void* data, std::size_t bytes, std::size_t capacity,
                                      bool owned);
  void* data_;
  std::size_t bytes_;
  std::size_t capacity_;  // what was taken from the pool
  bool owned_;
  std::shared_ptr<MemoryBudget> budget_;  // what it is charged to, if anything
  std::shared_ptr<const void> arena_;     // a frame's memory this buffer is part of
  // Made while a frame recorded (FrameMemory::made): which, and its slot.
  std::uint64_t frame_ = 0;
  int frame_slot_ = -1;
  // A deferred buffer's: set once, cleared when fetched.
  mutable std::atomic<bool> pending_{false};
  bool refetchable_ = false;  // (under fetch_mutex_ once handed out)
  mutable std::mutex fetch_mutex_;
  mutable std::function<void(void*)> fetch_;
  mutable std::shared_ptr<const void> twin_;
  std::atomic<bool> frozen_{false};
  mutable std::mutex derived_mutex_;
  mutable std::vector<std::pair<DerivedKey, std::shared_ptr<const void>>> derived_;
};

class Tensor {
 public:
  Tensor() = default;
  // A new contiguous tensor, every element zero.
  static Tensor zeros(DType dtype, Shape shape);
  // A new contiguous tensor whose elements are whatever its memory held:
  // for results whose every element is written before anything reads it.
  static Tensor uninitialized(DType dtype, Shape shape);
  // A contiguous view of host memory, not copied.
  static Tensor borrow(void* data, DType dtype, Shape shape);
  // A view of host memory with the host's strides: element (i, j, ...) is
  // at data + (i*strides[0] + j*strides[1] + ...) elements.
  static Tensor borrow_strided(void* data, DType dtype, Shape shape, Strides strides);
  // A tensor of a shape and no memory (raw() is null): a stand-in where
  // only the shape is read.
  static Tensor shaped(DType dtype, Shape shape);
  // This tensor, a borrow of host memory that nothing else holds, made a
  // borrow of `data` (borrow_strided's) in place: no allocation. False,
  // changing nothing, for any other tensor (then borrow anew).
  bool reborrow(void* data, DType dtype, const Shape& shape, const Strides& strides);
  // A contiguous tensor over a buffer (Buffer::deferred's, say) of at
  // least its size.
  static Tensor over(std::shared_ptr<Buffer> buffer, DType dtype, Shape shape);
  // From values given as doubles, converted to dtype.
  static Tensor from_values(DType dtype, Shape shape, const std::vector<double>& values);
  static Tensor scalar(DType dtype, double value) {
    Tensor t = zeros(dtype, {});
    t.set(0, value);
    return t;
  }

  // Empty again, as Tensor() is: what a graph walk does to each value
  // after its last reader (cheaper than assigning a new Tensor).
  void reset() {
    buffer_.reset();
    shape_.clear();
    strides_.clear();
    dtype_ = DType::f32;
    offset_ = 0;
    contiguous_ = true;
  }

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  std::int64_t rank() const { return static_cast<std::int64_t>(shape_.size()); }
  std::int64_t size() const { return element_count(shape_); }
  std::int64_t dim(std::int64_t axis) const { return shape_[static_cast<std::size_t>(axis)]; }
  const Strides& strides() const { return strides_; }
  bool contiguous() const;  // row-major without gaps: raw() holds size() elements in order
  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }
  std::int64_t offset() const { return offset_; }  // of the first element, in elements
  void* raw() const;                               // the first element (index 0 on every axis)

  // Views sharing this tensor's buffer. Axes are checked (std::out_of_range).
  Tensor slice(std::int64_t axis, std::int64_t start, std::int64_t end) const;
  Tensor select(std::int64_t axis, std::int64_t index) const;  // the axis removed
  Tensor permute(const std::vector<std::int64_t>& order) const;
  // Another view of this tensor's buffer: its first element `offset`
  // elements after this one's, with `shape` and `strides` (in elements).
  // Unchecked: the caller knows the view stays inside the buffer (a view
  // made before on a tensor of this one's layout, moved).
  Tensor view(std::int64_t offset, Shape shape, Strides strides) const;
  // This tensor if contiguous, else a contiguous copy.
  Tensor compact() const;
  // A contiguous copy with a buffer of its own, always.
  Tensor clone() const;
  // A contiguous tensor's elements in another shape of the same size, shared.
  Tensor reshape(Shape shape) const;

  // Elements in row-major order of the shape (whatever the strides), as doubles (exact for every
  // dtype). set() rounds to the dtype: to nearest even for floats; for i32 it truncates toward
  // zero, saturating at the type's bounds, NaN giving 0; for bool, anything but 0 is true.
  double get(std::int64_t flat) const {
    if (contiguous_ && dtype_ == DType::f32)  // the common case, inline
      return static_cast<const float*>(buffer_->data())[offset_ + flat];
    return get_any(flat);
  }
  void set(std::int64_t flat, double value) {
    if (contiguous_ && dtype_ == DType::f32)
      static_cast<float*>(buffer_->data())[offset_ + flat] = static_cast<float>(value);
    else
      set_any(flat, value);
  }
  std::vector<double> values() const;

 private:
  double get_any(std::int64_t flat) const;
  void set_any(std::int64_t flat, double value);

  std::int64_t physical(std::int64_t flat) const;  // a row-major index's offset from raw()

  DType dtype_ = DType::f32;
  Shape shape_;
  Strides strides_;
  std::int64_t offset_ = 0;  // of the first element in the buffer, in elements
  bool contiguous_ = true;
  std::shared_ptr<Buffer> buffer_;
};

// A tensor's stride along each of `rank` output axes it broadcasts into
// (aligned from the right): 0 where it has size 1 or no such axis.
Strides broadcast_strides(const Tensor& t, std::size_t rank);

}  // namespace ss::runtime
