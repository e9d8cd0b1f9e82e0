// Parameters of PE_DMA (models/dma/pe_dma.h). Defaults and bounds:
// platform/config/topology_schema.cpp.
#pragma once

#include <cstdint>

namespace kb {

struct DmaConfig {
  uint64_t burst_bytes = 0;      // bytes; a transfer is split into bursts of this size
  unsigned max_outstanding = 0;  // bursts in flight per channel
  double setup_ns = 0;           // ns, per transfer, before its first burst issues
};

}  // namespace kb
