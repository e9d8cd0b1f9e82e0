#include "models/tcm/tcm_arena.h"

#include "models/common/alloc_failure.h"

namespace kb {

namespace {

AllocationFailure tcm_overflow_failure(uint64_t asked, uint64_t capacity, uint64_t used,
                                       uint64_t largest_free, const std::string& what) {
  AllocationFailure f;
  f.memory = "TCM overflow";
  f.asked = asked;
  f.what = what;
  f.region = "the kernel arena";
  f.note =
      "the PE's TCM less PE_IPCQ's rings and PE_SCHEDULER's staging slots; Platform::describe "
      "and kernbench --check-topology show the split";
  f.capacity = capacity;
  f.used = used;
  f.largest_free = largest_free;
  f.advice =
      "free TCM tensors no longer needed (allocate a kernel's temporaries inside "
      "tl.scratch_scope(), which releases them when it ends; HostRuntime::release_all() frees "
      "the host's), work in smaller tiles, or keep the tensor in HBM and tl.load it a tile at "
      "a time";
  return f;
}

}  // namespace

TcmOverflow::TcmOverflow(uint64_t asked_bytes, uint64_t capacity_bytes, uint64_t used_bytes,
                         uint64_t largest_free_bytes)
    : std::runtime_error(
          tcm_overflow_failure(asked_bytes, capacity_bytes, used_bytes, largest_free_bytes, {})
              .text()),
      asked(asked_bytes),
      capacity(capacity_bytes),
      used(used_bytes),
      largest_free(largest_free_bytes) {}

std::string TcmOverflow::message(const std::string& what) const {
  return tcm_overflow_failure(asked, capacity, used, largest_free, what).text();
}

uint64_t TcmArena::largest_free(uint64_t align) const {
  return bump_largest_free(capacity_, used_, align);
}

uint64_t TcmArena::allocate(uint64_t bytes, uint64_t align) {
  const uint64_t start = (used_ + align - 1) / align * align;
  if (start > capacity_ || bytes > capacity_ - start)
    throw TcmOverflow(bytes, capacity_, used_, largest_free(align));
  used_ = start + bytes;
  if (used_ > high_water_) high_water_ = used_;
  return base_ + start;
}

}  // namespace kb
