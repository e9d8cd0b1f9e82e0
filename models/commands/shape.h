// A tensor's dimensions. Up to four are stored inside the object, more on the
// heap: every command descriptor carries its operands' handles by value, and a
// firmware kernel lowers thousands of commands per layer, so a handle copy
// must not allocate. It offers the std::vector operations the code uses, and
// converts from a std::vector<int64_t> (vec() converts back).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace kb {

class Shape {
 public:
  using value_type = int64_t;
  using size_type = std::size_t;
  using iterator = int64_t*;
  using const_iterator = const int64_t*;
  static constexpr std::size_t kInline = 4;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.end()); }
  // NOLINTNEXTLINE(google-explicit-constructor): call sites pass vectors as shapes.
  Shape(const std::vector<int64_t>& dims) { assign(dims.begin(), dims.end()); }
  Shape(std::size_t n, int64_t value) { resize(n, value); }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  Shape(It first, It last) {
    assign(first, last);
  }
  Shape(const Shape& o) { assign(o.begin(), o.end()); }
  Shape(Shape&& o) noexcept { take(o); }
  Shape& operator=(const Shape& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  Shape& operator=(Shape&& o) noexcept {
    if (this != &o) {
      heap_.reset();
      take(o);
    }
    return *this;
  }
  Shape& operator=(std::initializer_list<int64_t> dims) {
    assign(dims.begin(), dims.end());
    return *this;
  }
  ~Shape() = default;

  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  int64_t* data() { return heap_ ? heap_.get() : inline_.data(); }
  const int64_t* data() const { return heap_ ? heap_.get() : inline_.data(); }
  iterator begin() { return data(); }
  iterator end() { return data() + n_; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + n_; }
  int64_t& operator[](std::size_t i) { return data()[i]; }
  int64_t operator[](std::size_t i) const { return data()[i]; }
  int64_t& at(std::size_t i) {
    check(i);
    return data()[i];
  }
  int64_t at(std::size_t i) const {
    check(i);
    return data()[i];
  }
  int64_t& front() { return data()[0]; }
  int64_t front() const { return data()[0]; }
  int64_t& back() { return data()[n_ - 1]; }
  int64_t back() const { return data()[n_ - 1]; }

  void clear() { n_ = 0; }
  void push_back(int64_t v) {
    reserve(n_ + 1);
    data()[n_++] = v;
  }
  void pop_back() { --n_; }
  void resize(std::size_t n, int64_t value = 0) {
    reserve(n);
    std::fill(data() + std::min(n, n_), data() + n, value);
    n_ = n;
  }
  // Inserts v before pos; returns its position.
  iterator insert(const_iterator pos, int64_t v) {
    const auto i = static_cast<std::size_t>(pos - begin());
    push_back(v);
    std::rotate(begin() + i, end() - 1, end());
    return begin() + i;
  }
  iterator erase(const_iterator pos) {
    const auto i = static_cast<std::size_t>(pos - begin());
    std::move(begin() + i + 1, end(), begin() + i);
    --n_;
    return begin() + i;
  }
  template <class It>
  void assign(It first, It last) {
    const auto n = static_cast<std::size_t>(std::distance(first, last));
    reserve(n);
    std::copy(first, last, data());
    n_ = n;
  }
  std::vector<int64_t> vec() const { return {begin(), end()}; }

  friend bool operator==(const Shape& a, const Shape& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  void reserve(std::size_t n) {
    if (n <= cap_) return;
    const std::size_t cap = std::max(n, 2 * cap_);
    std::unique_ptr<int64_t[]> grown(new int64_t[cap]);
    std::copy(begin(), end(), grown.get());
    heap_ = std::move(grown);
    cap_ = cap;
  }
  void take(Shape& o) noexcept {
    inline_ = o.inline_;
    heap_ = std::move(o.heap_);
    n_ = o.n_;
    cap_ = o.cap_;
    o.n_ = 0;
    o.cap_ = kInline;
  }
  void check(std::size_t i) const {
    if (i >= n_)
      throw std::out_of_range("Shape::at: dimension " + std::to_string(i) + " of " +
                              std::to_string(n_));
  }

  std::array<int64_t, kInline> inline_{};
  std::unique_ptr<int64_t[]> heap_;  // when more than kInline dimensions
  std::size_t n_ = 0;
  std::size_t cap_ = kInline;
};

}  // namespace kb
