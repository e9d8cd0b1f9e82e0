// A FIFO that keeps its storage: a circular buffer that doubles when full and
// never shrinks. The models' queues (service queues, DMA and IPCQ job lists,
// engine lanes, DRAM command queues) push at the back and pop at the front
// millions of times a run while holding a handful of entries; std::deque
// allocates and frees a block every few of those, this allocates only while
// the queue reaches a new size. It offers the deque operations those queues
// use, with random-access iterators; insert and erase in the middle move the
// entries behind the position (the queues insert near their tail).
//
// T must be default-constructible and move-assignable: a popped or erased
// slot is reset to T() so that what it owned (a unique_ptr) goes at once.
// Unlike a deque's, a reference to an entry does not survive a push that
// grows the buffer nor an insert or erase before it, and an iterator is a
// position: after a pop_front it names the next entry.
#pragma once

#include <cstddef>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace kb {

template <class T>
class RingQueue {
  template <bool Const>
  class Iter {
    using Owner = std::conditional_t<Const, const RingQueue, RingQueue>;

   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = std::conditional_t<Const, const T*, T*>;
    using reference = std::conditional_t<Const, const T&, T&>;

    Iter() = default;
    Iter(Owner* q, std::size_t i) : q_(q), i_(i) {}
    // A const iterator from a mutable one, as std iterators convert.
    template <bool C = Const, std::enable_if_t<C, int> = 0>
    Iter(const Iter<false>& o)  // NOLINT(google-explicit-constructor)
        : q_(o.q_), i_(o.i_) {}

    reference operator*() const { return (*q_)[i_]; }
    pointer operator->() const { return &(*q_)[i_]; }
    reference operator[](difference_type n) const { return (*q_)[i_ + n]; }
    Iter& operator++() {
      ++i_;
      return *this;
    }
    Iter& operator--() {
      --i_;
      return *this;
    }
    Iter operator++(int) {
      Iter t = *this;
      ++i_;
      return t;
    }
    Iter operator--(int) {
      Iter t = *this;
      --i_;
      return t;
    }
    Iter& operator+=(difference_type n) {
      i_ += n;
      return *this;
    }
    Iter& operator-=(difference_type n) {
      i_ -= n;
      return *this;
    }
    Iter operator+(difference_type n) const { return Iter(q_, i_ + n); }
    Iter operator-(difference_type n) const { return Iter(q_, i_ - n); }
    friend Iter operator+(difference_type n, const Iter& it) { return it + n; }
    difference_type operator-(const Iter& o) const {
      return static_cast<difference_type>(i_) - static_cast<difference_type>(o.i_);
    }
    bool operator==(const Iter& o) const { return i_ == o.i_; }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }
    bool operator<(const Iter& o) const { return i_ < o.i_; }
    bool operator>(const Iter& o) const { return i_ > o.i_; }
    bool operator<=(const Iter& o) const { return i_ <= o.i_; }
    bool operator>=(const Iter& o) const { return i_ >= o.i_; }
    std::size_t index() const { return i_; }

   private:
    template <bool>
    friend class Iter;
    Owner* q_ = nullptr;
    std::size_t i_ = 0;
  };

 public:
  using value_type = T;
  using size_type = std::size_t;
  using reference = T&;
  using const_reference = const T&;
  using iterator = Iter<false>;
  using const_iterator = Iter<true>;

  RingQueue() = default;
  RingQueue(const RingQueue&) = default;
  RingQueue& operator=(const RingQueue&) = default;
  // A moved-from queue is empty, as a moved-from std::deque is in practice.
  RingQueue(RingQueue&& o) noexcept { *this = std::move(o); }
  RingQueue& operator=(RingQueue&& o) noexcept {
    buf_ = std::move(o.buf_);
    head_ = std::exchange(o.head_, 0);
    mask_ = std::exchange(o.mask_, 0);
    size_ = std::exchange(o.size_, 0);
    o.buf_.clear();
    return *this;
  }
  ~RingQueue() = default;

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  T& operator[](std::size_t i) { return buf_[(head_ + i) & mask_]; }
  const T& operator[](std::size_t i) const { return buf_[(head_ + i) & mask_]; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, size_); }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size_); }

  void push_back(T v) {
    make_room();
    (*this)[size_] = std::move(v);
    ++size_;
  }
  template <class... A>
  T& emplace_back(A&&... a) {
    T v(std::forward<A>(a)...);  // before make_room: the arguments may refer into the queue
    make_room();
    T& slot = (*this)[size_];
    slot = std::move(v);
    ++size_;
    return slot;
  }
  void push_front(T v) {
    make_room();
    head_ = (head_ + mask_) & mask_;
    ++size_;
    front() = std::move(v);
  }
  void pop_front() {
    front() = T();
    head_ = (head_ + 1) & mask_;
    --size_;
  }
  void pop_back() {
    back() = T();
    --size_;
  }
  void clear() {
    while (size_ > 0) pop_back();
    head_ = 0;
  }

  // Puts v before pos; returns where it now is.
  iterator insert(const_iterator pos, T v) {
    const std::size_t at = pos.index();
    push_back(std::move(v));
    for (std::size_t i = size_ - 1; i > at; --i) std::swap((*this)[i], (*this)[i - 1]);
    return iterator(this, at);
  }
  // Removes the entry at pos; returns the one after it.
  iterator erase(const_iterator pos) {
    const std::size_t at = pos.index();
    for (std::size_t i = at; i + 1 < size_; ++i) (*this)[i] = std::move((*this)[i + 1]);
    pop_back();
    return iterator(this, at);
  }

 private:
  // Doubles the buffer when it is full, the entries then in order from 0.
  void make_room() {
    if (size_ < buf_.size()) return;
    std::vector<T> grown(buf_.empty() ? 8 : 2 * buf_.size());
    for (std::size_t i = 0; i < size_; ++i) grown[i] = std::move((*this)[i]);
    buf_.swap(grown);
    head_ = 0;
    mask_ = buf_.size() - 1;
  }

  std::vector<T> buf_;
  std::size_t head_ = 0;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace kb
