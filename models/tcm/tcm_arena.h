// The TCM's allocator: a bump arena with nested marks (what scratch_scope
// rewinds to). Allocation beyond capacity is an error that gives the sizes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace kb {

class TcmOverflow : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class TcmArena {
 public:
  TcmArena(uint64_t base, uint64_t capacity) : base_(base), capacity_(capacity) {}

  // Offset (within the TCM) of `bytes` aligned to `align`. Throws TcmOverflow.
  uint64_t allocate(uint64_t bytes, uint64_t align = 64);
  uint64_t mark() const { return used_; }
  void release_to(uint64_t mark) { used_ = mark < used_ ? mark : used_; }
  uint64_t used() const { return used_; }
  uint64_t capacity() const { return capacity_; }
  uint64_t high_water() const { return high_water_; }
  // Starts a new high-water measurement from what is allocated now.
  void reset_high_water() { high_water_ = used_; }

 private:
  uint64_t base_, capacity_;
  uint64_t used_ = 0, high_water_ = 0;
};

}  // namespace kb
