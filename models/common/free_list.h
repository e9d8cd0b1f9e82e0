// Objects of one type that a hot path takes for the length of a scope and
// gives back, so that each use does not construct and destroy one. A scope
// that nests inside another takes its own object; the list grows to the most
// in use at once. The list itself is never destroyed: at exit, the objects'
// members (SystemC events) may outlive the kernel's own objects.
#pragma once

#include <memory>
#include <vector>

namespace kb {

template <typename T>
class FreeList {
 public:
  // One not in use, or a new one; the caller owns it until give().
  static T* take() {
    auto& l = list();
    if (l.empty()) return new T;
    T* t = l.back().release();
    l.pop_back();
    return t;
  }
  static void give(T* t) { list().emplace_back(t); }
  // The one the next take() returns, or null if it makes a new one (a caller
  // may fetch it into the cache ahead of time).
  static const T* next() {
    const auto& l = list();
    return l.empty() ? nullptr : l.back().get();
  }

 private:
  static std::vector<std::unique_ptr<T>>& list() {
    static auto* l = new std::vector<std::unique_ptr<T>>;
    return *l;
  }
};

}  // namespace kb
