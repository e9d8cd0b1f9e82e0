#include "platform/fabric/pe.h"

namespace kb {

namespace {
TilingConfig tiling_of(const TopologyConfig& cfg) {
  TilingConfig t;
  t.tile_m = cfg.pe.gemm.tile_m;
  t.tile_k = cfg.pe.gemm.tile_k;
  t.tile_n = cfg.pe.gemm.tile_n;
  return t;
}
}  // namespace

Pe::Pe(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map,
       const Location& self)
    : sc_core::sc_module(name),
      xbar("xbar", map, cfg.pe.xbar_latency_ns),
      hbm("hbm", cfg.pe.hbm),
      tcm("tcm", cfg.pe.tcm, tiling_of(cfg).slot_bytes() * cfg.pe.scheduler.staging_buffers),
      dma("dma", cfg.pe.dma, map, self),
      gemm("gemm", cfg.pe.gemm),
      math("math", cfg.pe.math, cfg.pe.clock_ghz),
      scheduler("scheduler", tiling_of(cfg), cfg.pe.scheduler.staging_buffers,
                map.tcm(self.sip, self.cube, self.pe, tcm.staging_offset())),
      cpu("cpu", cfg.pe),
      self_(self) {
  xbar.add_port({nullptr, hbm.name(), nullptr});
  xbar.out.bind(hbm.in);
  xbar.add_port({nullptr, tcm.dma_port.name(), nullptr});
  xbar.out.bind(tcm.dma_port.in);
  dma.port.bind(xbar.in);
  xbar.set_route_policy([this](const Location& d) {
    const bool mine = d.sip == self_.sip && d.cube == self_.cube && d.pe == self_.pe;
    if (mine && d.space == Space::kHbm) return kHbmPort;
    if (mine && d.space == Space::kTcm) return kTcmPort;
    return kUplinkPort;
  });
  // Stage sockets, EngineKind order: dma, tcm, gemm, math.
  PeEngine* engines[kNumEngineKinds] = {&dma, &tcm, &gemm, &math};
  for (PeEngine* from : engines)
    for (PeEngine* to : engines) from->stage_out.bind(to->stage_in);
  for (PeEngine* to : engines) {
    scheduler.stage_out.bind(to->stage_in);
    cpu.stage_out.bind(to->stage_in);
  }
  cpu.cmd_out.bind(scheduler.cmd_in);
}

void Pe::set_op_log(OpLog* log) {
  for (PeEngine* e : {static_cast<PeEngine*>(&dma), static_cast<PeEngine*>(&tcm),
                      static_cast<PeEngine*>(&gemm), static_cast<PeEngine*>(&math)})
    e->set_op_log(log);
}

}  // namespace kb

namespace kb {

void Pe::set_data_mode(bool on) {
  data_ = on ? std::make_unique<PeData>(tcm.dma_port.store(), self_) : nullptr;
  for (PeEngine* e : {static_cast<PeEngine*>(&dma), static_cast<PeEngine*>(&tcm),
                      static_cast<PeEngine*>(&gemm), static_cast<PeEngine*>(&math)})
    e->set_data(data_.get());
  hbm.set_data_mode(on);
  tcm.dma_port.set_data_mode(on);
  dma.set_data_mode(on);
}

}  // namespace kb
