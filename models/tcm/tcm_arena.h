// The TCM's allocator: a bump arena with nested marks (what scratch_scope
// rewinds to). An allocation beyond capacity throws TcmOverflow, which says
// in one line what was asked, the arena's size and state, and what to do.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace kb {

// A TCM allocation that does not fit the arena. what() is message({}).
class TcmOverflow : public std::runtime_error {
 public:
  TcmOverflow(uint64_t asked, uint64_t capacity, uint64_t used, uint64_t largest_free);
  // The line (models/common/alloc_failure.h), naming the allocation by `what`
  // ("tensor #7 [1024,512] fp16", "scratch P of recipe softmax_merge ...";
  // empty: by its size alone).
  std::string message(const std::string& what) const;

  uint64_t asked, capacity, used, largest_free;
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
  // The largest allocation at `align` that still fits (the arena's free
  // space is one block: it is a bump allocator).
  uint64_t largest_free(uint64_t align = 64) const;
  uint64_t high_water() const { return high_water_; }
  // Starts a new high-water measurement from what is allocated now.
  void reset_high_water() { high_water_ = used_; }

 private:
  uint64_t base_, capacity_;
  uint64_t used_ = 0, high_water_ = 0;
};

}  // namespace kb
