// Parameters of a PE's TCM scratchpad (models/tcm/pe_tcm.h). Defaults and
// bounds: platform/config/topology_schema.cpp.
#pragma once

#include <cstdint>

namespace kb {

struct TcmConfig {
  uint64_t size_bytes = 0;    // bytes, capacity
  double bandwidth_gbps = 0;  // GB/s, DMA port (and FETCH/STORE) bandwidth
  double latency_ns = 0;      // ns, DMA-port access latency (pipelined, after the port service)
};

}  // namespace kb
