// A map from simulated instants (sc_time values) to small integers, for the
// calendar (models/common/calendar.h): open addressing with linear probing
// in a power-of-two table, Fibonacci hashing, backward-shift deletion. Its
// find and insert take no division and touch one cache line of keys in the
// common case, where std::unordered_map takes a modulo and a node per key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kb {

class InstantIndex {
 public:
  // Instants are sc_time values; this one is never used.
  static constexpr uint64_t kNone = UINT64_MAX;

  InstantIndex() { resize(64); }

  size_t size() const { return size_; }

  // The value of `at`, or null when `at` is not in the index.
  uint32_t* find(uint64_t at) {
    for (size_t i = home(at);; i = (i + 1) & mask_) {
      if (keys_[i] == at) return &vals_[i];
      if (keys_[i] == kNone) return nullptr;
    }
  }

  // Adds `at` (not in the index yet) with value `v`.
  void insert(uint64_t at, uint32_t v) {
    if (2 * (size_ + 1) > keys_.size()) resize(2 * keys_.size());
    place(at, v);
    ++size_;
  }

  // Removes `at` (in the index) and returns its value.
  uint32_t take(uint64_t at) {
    size_t i = home(at);
    while (keys_[i] != at) i = (i + 1) & mask_;
    const uint32_t v = vals_[i];
    // Backward shift: move each later key of the run into the hole unless
    // its home lies cyclically in (hole, its slot].
    for (size_t j = (i + 1) & mask_; keys_[j] != kNone; j = (j + 1) & mask_) {
      const size_t h = home(keys_[j]);
      const bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
      if (stays) continue;
      keys_[i] = keys_[j];
      vals_[i] = vals_[j];
      i = j;
    }
    keys_[i] = kNone;
    --size_;
    return v;
  }

 private:
  size_t home(uint64_t at) const {
    return static_cast<size_t>((at * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void place(uint64_t at, uint32_t v) {
    size_t i = home(at);
    while (keys_[i] != kNone) i = (i + 1) & mask_;
    keys_[i] = at;
    vals_[i] = v;
  }
  void resize(size_t n) {  // n: a power of two
    std::vector<uint64_t> old_keys(n, kNone);
    std::vector<uint32_t> old_vals(n);
    old_keys.swap(keys_);
    old_vals.swap(vals_);
    mask_ = n - 1;
    shift_ = 64;
    for (size_t m = n; m > 1; m >>= 1) --shift_;
    for (size_t i = 0; i < old_keys.size(); ++i)
      if (old_keys[i] != kNone) place(old_keys[i], old_vals[i]);
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> vals_;
  size_t mask_ = 0;
  unsigned shift_ = 64;
  size_t size_ = 0;
};

}  // namespace kb
