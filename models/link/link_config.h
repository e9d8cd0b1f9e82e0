// Parameters of one link direction (models/link/link.h): a FIFO serialiser
// at the link bandwidth, then a propagation latency. Every packet pays
// header_bytes on the wire. visit() below gives each field's unit and bound
// (models/common/knob_spec.h); the defaults differ per link, so the
// configuration that holds a link gives them (platform/config/topology_config.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "models/common/energy.h"
#include "models/common/knob_spec.h"

namespace kb {

struct LinkConfig {
  double bandwidth_gbps = 0;
  double latency_ns = 0;
  uint64_t packet_bytes = 0;
  uint64_t header_bytes = 0;
  BitEnergyConfig energy;

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
    v.section("energy", nullptr, [&] {
      energy.visit(v,
                   "energy per bit on the wire, headers included, pJ/bit (defaults: PE link 0.1, "
                   "an on-die wire of about 1 mm at 0.1 pJ/bit/mm, Dally, SC10 keynote; cube and "
                   "io links 0.5, die-to-die, UCIe 1.0 advanced package; SIP and host links 5, "
                   "off-package SerDes)",
                   "static power of this direction, mW (defaults: PE link 0; cube and io links "
                   "5; SIP and host links 100, SerDes idle power: estimates)");
    });
  }
};

// Bytes on the wire for `payload` bytes on one link direction: every packet
// of at most packet_bytes adds header_bytes, and an empty transaction (a read
// request, a write acknowledgement) is one header-only packet. Link carries
// this many; the analytic models price it (an average payload that is not
// whole rounds its packets up as well).
inline double wire_bytes(const LinkConfig& l, double payload) {
  const double packets =
      payload <= 0
          ? 1
          : std::ceil(payload / static_cast<double>(std::max<uint64_t>(l.packet_bytes, 1)));
  return payload + packets * static_cast<double>(l.header_bytes);
}

// The time `payload` bytes occupy one link direction: their wire bytes at
// its bandwidth, ns (the analytic models' price of a Link's wire).
inline double wire_ns(const LinkConfig& l, double payload) {
  return wire_bytes(l, payload) / l.bandwidth_gbps;
}

}  // namespace kb
