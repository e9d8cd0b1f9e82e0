// Parameters of one link direction (models/link/link.h): a FIFO serialiser
// at the link bandwidth, then a propagation latency. Every packet pays
// header_bytes on the wire. Defaults and bounds: platform/config/topology_schema.cpp.
#pragma once

#include <cstdint>

namespace kb {

struct LinkConfig {
  double bandwidth_gbps = 0;  // GB/s (= payload bytes per ns) on the wire
  double latency_ns = 0;      // ns, propagation, paid after serialisation
  uint64_t packet_bytes = 0;  // bytes, max payload per packet
  uint64_t header_bytes = 0;  // bytes, wire overhead per packet
};

}  // namespace kb
