#include "platform/fabric/pe.h"

namespace kb {

Pe::Pe(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map,
       const Location& self)
    : sc_core::sc_module(name),
      xbar("xbar", map, cfg.pe.xbar_latency_ns),
      hbm("hbm", cfg.pe.hbm),
      tcm("tcm", cfg.pe.tcm.size_bytes, cfg.pe.tcm.bandwidth_gbps, cfg.pe.tcm.latency_ns),
      dma("dma", cfg.pe.dma, map, self),
      self_(self) {
  xbar.add_port({nullptr, hbm.name(), nullptr});
  xbar.out.bind(hbm.in);
  xbar.add_port({nullptr, tcm.name(), nullptr});
  xbar.out.bind(tcm.in);
  dma.port.bind(xbar.in);
  xbar.set_route_policy([this](const Location& d) {
    const bool mine = d.sip == self_.sip && d.cube == self_.cube && d.pe == self_.pe;
    if (mine && d.space == Space::kHbm) return kHbmPort;
    if (mine && d.space == Space::kTcm) return kTcmPort;
    return kUplinkPort;
  });
}

}  // namespace kb
