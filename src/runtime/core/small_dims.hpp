// A tensor's shape or strides: std::vector's interface over up to
// kInline sizes kept inside the object, on the heap past that. Every
// tensor, view and kernel call makes a few of them, so a call that makes no
// heap allocation needs shapes that don't (issue 42); ranks past kInline
// are rare and still work.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace ss::runtime {

class SmallDims {
 public:
  using value_type = std::int64_t;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = std::int64_t&;
  using const_reference = const std::int64_t&;
  using pointer = std::int64_t*;
  using const_pointer = const std::int64_t*;
  using iterator = std::int64_t*;
  using const_iterator = const std::int64_t*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;
  static constexpr std::size_t kInline = 8;

  SmallDims() noexcept {}
  explicit SmallDims(std::size_t count, std::int64_t value = 0) { assign(count, value); }
  SmallDims(std::initializer_list<std::int64_t> values) { assign(values.begin(), values.end()); }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  SmallDims(It first, It last) {
    assign(first, last);
  }
  SmallDims(const std::vector<std::int64_t>& v) { assign(v.begin(), v.end()); }
  SmallDims(const SmallDims& o) { assign(o.begin(), o.end()); }
  SmallDims(SmallDims&& o) noexcept { take(o); }
  SmallDims& operator=(const SmallDims& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallDims& operator=(SmallDims&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  SmallDims& operator=(std::initializer_list<std::int64_t> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  ~SmallDims() { release(); }

  operator std::vector<std::int64_t>() const { return {begin(), end()}; }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t capacity() const { return capacity_; }
  std::int64_t* data() { return data_; }
  const std::int64_t* data() const { return data_; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  const_iterator cbegin() const { return data_; }
  const_iterator cend() const { return data_ + size_; }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }
  std::int64_t& operator[](std::size_t i) { return data_[i]; }
  const std::int64_t& operator[](std::size_t i) const { return data_[i]; }
  std::int64_t& at(std::size_t i) {
    if (i >= size_) throw std::out_of_range("SmallDims::at");
    return data_[i];
  }
  const std::int64_t& at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("SmallDims::at");
    return data_[i];
  }
  std::int64_t& front() { return data_[0]; }
  const std::int64_t& front() const { return data_[0]; }
  std::int64_t& back() { return data_[size_ - 1]; }
  const std::int64_t& back() const { return data_[size_ - 1]; }

  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    auto* grown = new std::int64_t[n];
    std::copy(begin(), end(), grown);
    const std::size_t kept = size_;  // release() forgets the size
    release();
    data_ = grown;
    capacity_ = n;
    size_ = kept;
  }
  void clear() { size_ = 0; }
  void resize(std::size_t n, std::int64_t value = 0) {
    reserve(n);
    for (std::size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = n;
  }
  void assign(std::size_t count, std::int64_t value) {
    size_ = 0;
    resize(count, value);
  }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  void assign(It first, It last) {
    const auto n = static_cast<std::size_t>(std::distance(first, last));
    size_ = 0;
    reserve(n);
    for (std::size_t i = 0; i < n; ++i, ++first) data_[i] = *first;  // (no memmove call)
    size_ = n;
  }
  void assign(std::initializer_list<std::int64_t> values) { assign(values.begin(), values.end()); }
  void push_back(std::int64_t v) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    data_[size_++] = v;
  }
  std::int64_t& emplace_back(std::int64_t v) {
    push_back(v);
    return back();
  }
  void pop_back() { --size_; }
  iterator insert(const_iterator at, std::int64_t v) { return insert(at, std::size_t{1}, v); }
  iterator insert(const_iterator at, std::size_t count, std::int64_t v) {
    const auto k = static_cast<std::size_t>(at - data_);
    open(k, count);
    std::fill(data_ + k, data_ + k + count, v);
    return data_ + k;
  }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  iterator insert(const_iterator at, It first, It last) {
    const auto k = static_cast<std::size_t>(at - data_);
    const auto n = static_cast<std::size_t>(std::distance(first, last));
    if (n == 0) return data_ + k;
    // The range may be this one's own elements: copy them out first.
    std::int64_t staged_inline[kInline];
    std::vector<std::int64_t> staged_heap;
    std::int64_t* staged = staged_inline;
    if (n > kInline) {
      staged_heap.assign(first, last);
      staged = staged_heap.data();
    } else {
      std::copy(first, last, staged_inline);
    }
    open(k, n);
    std::copy(staged, staged + n, data_ + k);
    return data_ + k;
  }
  iterator insert(const_iterator at, std::initializer_list<std::int64_t> values) {
    return insert(at, values.begin(), values.end());
  }
  iterator erase(const_iterator at) { return erase(at, at + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    const auto k = static_cast<std::size_t>(first - data_);
    const auto n = static_cast<std::size_t>(last - first);
    std::copy(data_ + k + n, data_ + size_, data_ + k);
    size_ -= n;
    return data_ + k;
  }
  void swap(SmallDims& o) noexcept {
    SmallDims t(std::move(o));
    o = std::move(*this);
    *this = std::move(t);
  }

  // (A loop, not std::equal: for a few sizes, cheaper than memcmp's call.)
  friend bool operator==(const SmallDims& a, const SmallDims& b) {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (a.data_[i] != b.data_[i]) return false;
    return true;
  }
  friend bool operator!=(const SmallDims& a, const SmallDims& b) { return !(a == b); }
  friend bool operator<(const SmallDims& a, const SmallDims& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const SmallDims& a, const std::vector<std::int64_t>& b) {
    if (a.size_ != b.size()) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (a.data_[i] != b[i]) return false;
    return true;
  }
  friend bool operator!=(const SmallDims& a, const std::vector<std::int64_t>& b) {
    return !(a == b);
  }

 private:
  bool on_heap() const { return data_ != inline_; }
  void release() {
    if (on_heap()) delete[] data_;
    data_ = inline_;
    capacity_ = kInline;
    size_ = 0;
  }
  void take(SmallDims& o) {
    if (o.on_heap()) {
      data_ = o.data_;
      capacity_ = o.capacity_;
      size_ = o.size_;
      o.data_ = o.inline_;
      o.capacity_ = kInline;
      o.size_ = 0;
    } else {
      data_ = inline_;
      capacity_ = kInline;
      for (std::size_t i = 0; i < o.size_; ++i) inline_[i] = o.inline_[i];
      size_ = o.size_;
      o.size_ = 0;
    }
  }
  // Makes room for n elements at k, the ones after moved up.
  void open(std::size_t k, std::size_t n) {
    if (size_ + n > capacity_) reserve(std::max(size_ + n, capacity_ * 2));
    std::copy_backward(data_ + k, data_ + size_, data_ + size_ + n);
    size_ += n;
  }

  std::int64_t* data_ = inline_;
  std::size_t size_ = 0;
  std::size_t capacity_ = kInline;
  std::int64_t inline_[kInline];
};

}  // namespace ss::runtime
