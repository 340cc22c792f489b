// A vector whose first N items live inside it: a call's short lists (its
// arguments as bound, its writer locks) cost no heap allocation, and a
// longer one still works (its items then move to a std::vector).
#pragma once

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

namespace ss::support {

template <typename T, std::size_t N>
class InlineVector {
 public:
  InlineVector() = default;
  // `count` value-initialized items (on the heap only past N).
  explicit InlineVector(std::size_t count) : size_(count) {
    if (count > N) spill_.resize(count);
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void push_back(T item) {
    if (size_ < N && spill_.empty()) {
      inline_[size_++] = std::move(item);
      return;
    }
    if (spill_.empty()) {
      spill_.reserve(N * 2);
      for (std::size_t i = 0; i < size_; ++i) spill_.push_back(std::move(inline_[i]));
    }
    spill_.push_back(std::move(item));
    ++size_;
  }

 private:
  T* data() { return spill_.empty() ? inline_.data() : spill_.data(); }
  const T* data() const { return spill_.empty() ? inline_.data() : spill_.data(); }

  std::array<T, N> inline_{};
  std::vector<T> spill_;
  std::size_t size_ = 0;
};

}  // namespace ss::support
