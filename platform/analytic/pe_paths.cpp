#include "platform/analytic/pe_paths.h"

#include <algorithm>

#include "models/topology/fabric_route.h"
#include "platform/config/topology_config.h"

namespace kb {

namespace {

double ceil_div(uint64_t a, uint64_t b) {
  return static_cast<double>((a + b - 1) / b);
}

}  // namespace

RouteNodeCost route_node_cost(const TopologyConfig& cfg, const RouteNode& node) {
  static const BitEnergyConfig kNone{};
  switch (node.kind) {
    case RouteNode::Kind::kXbar:
      return {cfg.pe.xbar_latency_ns, &cfg.pe.xbar_energy};
    case RouteNode::Kind::kCubeRouter:
      return {cfg.cube.router_latency_ns, &cfg.cube.router_energy};
    case RouteNode::Kind::kHub:
      return {cfg.sip.hub_latency_ns, &cfg.sip.hub_energy};
    case RouteNode::Kind::kHostPort:
      break;
  }
  return {0, &kNone};
}

double own_hbm_read_ns(const TopologyConfig& cfg, uint64_t n, uint64_t b) {
  const PeConfig& pe = cfg.pe;
  if (b == 0) b = std::min<uint64_t>(pe.dma.burst_bytes, n);
  const double nb = ceil_div(n, b);
  return own_hbm_read_ns(cfg, 0.0, ceil_div(n, pe.hbm.num_pcs) / pe.hbm.pc_bandwidth_gbps,
                         std::min<double>(pe.hbm.num_pcs, nb) * static_cast<double>(b));
}

double own_hbm_read_ns(const TopologyConfig& cfg, double start_ns, double pc_ns,
                       double landing_bytes) {
  const PeConfig& pe = cfg.pe;
  return start_ns + 4 * pe.xbar_latency_ns + pc_ns + pe.hbm.access_latency_ns +
         landing_bytes / pe.tcm.bandwidth_gbps + pe.tcm.latency_ns;
}

double own_hbm_write_ns(const TopologyConfig& cfg, uint64_t n) {
  const PeConfig& pe = cfg.pe;
  const uint64_t b = std::min<uint64_t>(pe.dma.burst_bytes, n);
  const double nb = ceil_div(n, b);
  return 4 * pe.xbar_latency_ns + pe.tcm.latency_ns + pe.hbm.access_latency_ns +
         std::min<double>(pe.hbm.num_pcs, nb) * static_cast<double>(b) / pe.tcm.bandwidth_gbps +
         ceil_div(n, pe.hbm.num_pcs) / pe.hbm.pc_bandwidth_gbps;
}

}  // namespace kb
