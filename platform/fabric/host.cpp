#include "platform/fabric/host.h"

#include "models/topology/fabric_route.h"

namespace kb {

Host::Host(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map)
    : sc_core::sc_module(name),
      port("port", map, 0.0),
      memory("memory", cfg.host.memory_bytes, cfg.host.memory_bandwidth_gbps,
             cfg.host.memory_latency_ns),
      debug("debug") {
  memory.set_energy(cfg.host.memory_energy, EnergyClass::kHostMemory);
  debug.bind(port.in);
  port.add_port({nullptr, memory.name(), nullptr});
  port.out.bind(memory.in);
  // Port 0: the memory; port 1: the host link h2d (added by the System).
  port.set_route_policy([](const Location& d) {
    return FabricRouting::host_port_hop(d).exit == RouteExit::kDeliver ? 0u : 1u;
  });
}

}  // namespace kb
