// The one line an allocation that does not fit says, for every allocator a
// kernel or its host meets (docs/library.md, "Limits a kernel meets"): the
// TCM arena (TcmOverflow, models/tcm/tcm_arena.h), a PE's HBM slice and a
// cube's SRAM (HostRuntime, platform/runtime/host_runtime.h):
//
//   <memory>: cannot allocate <asked> bytes for <what>; <region> is <capacity>
//   bytes (<note>), <used> in use, largest free block <largest_free> bytes;
//   <advice>
#pragma once

#include <cstdint>
#include <string>

namespace kb {

struct AllocationFailure {
  std::string memory;  // "TCM overflow", "HBM of PE 0.0.0 is full"
  uint64_t asked = 0;
  std::string what;    // "tensor #7 [1024,512] fp16"; empty: the size alone
  std::string region;  // "the kernel arena"
  std::string note;    // what the region is of; empty: none
  uint64_t capacity = 0, used = 0, largest_free = 0;
  std::string advice;

  std::string text() const {
    std::string s = memory + ": cannot allocate " + std::to_string(asked) + " bytes";
    if (!what.empty()) s += " for " + what;
    s += "; " + region + " is " + std::to_string(capacity) + " bytes";
    if (!note.empty()) s += " (" + note + ")";
    s += ", " + std::to_string(used) + " in use, largest free block " +
         std::to_string(largest_free) + " bytes";
    if (!advice.empty()) s += "; " + advice;
    return s;
  }
};

// The largest block a bump allocator of `capacity` bytes with `used` taken
// still hands out at `align` (a power of two or any positive value).
inline uint64_t bump_largest_free(uint64_t capacity, uint64_t used, uint64_t align) {
  const uint64_t start = (used + align - 1) / align * align;
  return start < capacity ? capacity - start : 0;
}

}  // namespace kb
