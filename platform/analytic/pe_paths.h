// Paths through the platform as the analytic models price them, from the
// configured latencies and bandwidths: what a transaction pays at each node
// of the fabric's path, and the time of one PE's own DMA transfers between
// its HBM slice and its TCM, alone on an idle PE (no queueing; the DMA's
// setup is the caller's).
#pragma once

#include <cstdint>

namespace kb {

struct TopologyConfig;
struct RouteNode;
struct BitEnergyConfig;

// What a transaction pays at a routing node of its path
// (models/topology/fabric_route.h): its latency each way, and the energy
// per bit of the data it routes; a crossbar's, a cube router's, a hub's (the
// host port's: none).
struct RouteNodeCost {
  double latency_ns;
  const BitEnergyConfig* energy;
};
RouteNodeCost route_node_cost(const TopologyConfig& cfg, const RouteNode& node);

// Own HBM -> TCM, `n` bytes in bursts of `burst` (0: the DMA's burst size):
// the bytes spread evenly over the pseudo-channels, and the last burst of
// each channel lands in the TCM together.
double own_hbm_read_ns(const TopologyConfig& cfg, uint64_t n, uint64_t burst = 0);
// The same read from `start_ns` on, its pseudo-channels busy `pc_ns` and
// `landing_bytes` of its last bursts landing in the TCM together: the
// crossbar both ways for the read and for the TCM write, the pseudo-channels,
// the HBM latency, the landing at the TCM bandwidth, the TCM latency.
double own_hbm_read_ns(const TopologyConfig& cfg, double start_ns, double pc_ns,
                       double landing_bytes);
// TCM -> own HBM, `n` bytes.
double own_hbm_write_ns(const TopologyConfig& cfg, uint64_t n);

}  // namespace kb
