// Parameters of one link direction (models/link/link.h): a FIFO serialiser
// at the link bandwidth, then a propagation latency. Every packet pays
// header_bytes on the wire. visit() below gives each field's unit and bound
// (models/common/knob_spec.h); the defaults differ per link, so the
// configuration that holds a link gives them (platform/config/topology_config.h).
#pragma once

#include <cstdint>

#include "models/common/knob_spec.h"

namespace kb {

struct LinkConfig {
  double bandwidth_gbps = 0;
  double latency_ns = 0;
  uint64_t packet_bytes = 0;
  uint64_t header_bytes = 0;

  template <class V>
  void visit(V& v) {
    v.real(bandwidth_gbps,
           {"bandwidth_gbps", "serialisation bandwidth per direction, GB/s (= B/ns)",
            Bound::kPositive});
    v.real(latency_ns,
           {"latency_ns", "propagation latency after serialisation, ns", Bound::kNonNegative});
    v.size(packet_bytes,
           {"packet_bytes", "max payload per packet (transfers are split into packets)",
            Bound::kAtLeastOne});
    v.size(header_bytes, {"header_bytes", "wire overhead per packet, bytes"});
  }
};

}  // namespace kb
