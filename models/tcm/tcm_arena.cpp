#include "models/tcm/tcm_arena.h"

namespace kb {

uint64_t TcmArena::allocate(uint64_t bytes, uint64_t align) {
  const uint64_t start = (used_ + align - 1) / align * align;
  if (start + bytes > capacity_)
    throw TcmOverflow("TCM overflow: cannot allocate " + std::to_string(bytes) + " bytes; " +
                      std::to_string(used_) + " of " + std::to_string(capacity_) +
                      " arena bytes are in use");
  used_ = start + bytes;
  if (used_ > high_water_) high_water_ = used_;
  return base_ + start;
}

}  // namespace kb
