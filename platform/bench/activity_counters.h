// What the PEs and links have done so far, summed over the platform: IPCQ
// commands, DMA transfers and bursts, and link traffic. Benches take one
// before and one after a run and report the difference.
#pragma once

#include <cstdint>

#include "platform/platform.h"

namespace kb {

struct ActivityCounters {
  uint64_t ipcq_ops = 0, dma_reads = 0, dma_writes = 0, dma_bursts = 0;
  Platform::Traffic traffic;

  static ActivityCounters take(Platform& p);
  uint64_t dma_ops() const { return dma_reads + dma_writes; }
  // The activity between `before` and this.
  ActivityCounters since(const ActivityCounters& before) const;
};

}  // namespace kb
