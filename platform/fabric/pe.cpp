#include "platform/fabric/pe.h"

#include <algorithm>

#include "models/common/errors.h"
#include "platform/fabric/engine_variants.h"
#if KB_HAVE_RTL
#include "models/rtl/pe_math_rtl.h"
#endif

namespace kb {

namespace {

// PE_MATH: the TLM model, or the RTL bridge for the PEs pe.math.rtl_pes selects.
std::unique_ptr<PeMath> make_math(const TopologyConfig& cfg, const Location& self) {
  const MathConfig& m = cfg.pe.math;
  if (m.impl != "tlm" && rtl_pes_selects(m.rtl_pes, self.sip, self.cube, self.pe)) {
    if (m.impl != "rtl" && m.impl != "scoreboard") {
      if (auto variant = make_registered_math(m.impl, "math", m, cfg.pe.clock_ghz)) return variant;
      throw ConfigError("pe.math.impl: the factory registered for '" + m.impl +
                        "' made no engine (register_math_engine's factory returned null)");
    }
#if KB_HAVE_RTL
    return std::make_unique<PeMathRtl>(
        "math", m, cfg.pe.clock_ghz,
        m.impl == "scoreboard" ? PeMathRtl::Mode::kScoreboard : PeMathRtl::Mode::kRtl);
#else
    throw ConfigError("pe.math.impl: " + m.impl +
                      " needs the RTL co-simulation path, which this build lacks (install "
                      "Verilator, e.g. apt-get install verilator, and re-run cmake)");
#endif
  }
  return std::make_unique<PeMath>("math", m, cfg.pe.clock_ghz);
}

TilingConfig tiling_of(const TopologyConfig& cfg) {
  TilingConfig t;
  t.tile_m = cfg.pe.gemm.tile_m;
  t.tile_k = cfg.pe.gemm.tile_k;
  t.tile_n = cfg.pe.gemm.tile_n;
  return t;
}

// Where this PE's IPCQ receive rings may live: the top of its TCM below the
// staging buffers, the top of its HBM slice, its share of the top of the
// cube SRAM (PE i of P owns the i-th of the last P ring regions).
IpcqRegions ipcq_regions(const TopologyConfig& cfg, const AddressMap& map, const Location& self,
                         uint64_t tcm_offset) {
  const uint64_t ring = cfg.pe.ipcq.ring_bytes;
  IpcqRegions r;
  r.tcm = map.tcm(self.sip, self.cube, self.pe, tcm_offset);
  r.hbm = map.hbm(self.sip, self.cube, self.pe, cfg.pe.hbm.size_bytes - ring);
  const uint64_t share = ipcq_sram_share(cfg);
  r.sram =
      map.sram(self.sip, self.cube, cfg.cube.sram.size_bytes - (cfg.cube.pes - self.pe) * share);
  r.tcm_bytes = r.hbm_bytes = ring;
  r.sram_bytes = share;
  return r;
}
}  // namespace

uint64_t tcm_staging_bytes(const TopologyConfig& cfg) {
  return tiling_of(cfg).slot_bytes() * cfg.pe.scheduler.staging_buffers;
}

uint64_t tcm_arena_capacity(const TopologyConfig& cfg) {
  const uint64_t reserved = tcm_staging_bytes(cfg) + cfg.pe.ipcq.ring_bytes;
  return cfg.pe.tcm.size_bytes > reserved ? cfg.pe.tcm.size_bytes - reserved : 0;
}

uint64_t ipcq_hbm_reserved(const TopologyConfig& cfg) {
  return cfg.pe.ipcq.ring_bytes;
}
uint64_t ipcq_sram_share(const TopologyConfig& cfg) {
  return std::min(cfg.pe.ipcq.ring_bytes, cfg.cube.sram.size_bytes / (uint64_t{2} * cfg.cube.pes));
}
uint64_t ipcq_sram_reserved(const TopologyConfig& cfg) {
  return ipcq_sram_share(cfg) * cfg.cube.pes;
}

Pe::Pe(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map,
       const Location& self)
    : sc_core::sc_module(name),
      xbar("xbar", map, cfg.pe.xbar_latency_ns),
      hbm("hbm", cfg.pe.hbm),
      tcm("tcm", cfg.pe.tcm, tcm_staging_bytes(cfg), cfg.pe.ipcq.ring_bytes),
      dma("dma", cfg.pe.dma, map, self),
      gemm("gemm", cfg.pe.gemm),
      math_owner_(make_math(cfg, self)),
      math(*math_owner_),
      ipcq("ipcq", cfg.pe.ipcq, map, self, ipcq_regions(cfg, map, self, tcm.ipcq_offset())),
      scheduler("scheduler", tiling_of(cfg), cfg.pe.scheduler.staging_buffers,
                map.tcm(self.sip, self.cube, self.pe, tcm.staging_offset())),
      cpu("cpu", cfg.pe.cpu, cfg.pe.cost_model, cfg.pe.gemm, cfg.pe.clock_ghz, self),
      self_(self) {
  xbar.set_energy(cfg.pe.xbar_energy);
  xbar.add_port({nullptr, hbm.name(), nullptr});
  xbar.out.bind(hbm.in);
  xbar.add_port({nullptr, tcm.dma_port.name(), nullptr});
  xbar.out.bind(tcm.dma_port.in);
  xbar.add_port({nullptr, ipcq.regs.name(), nullptr});
  xbar.out.bind(ipcq.regs);
  dma.port.bind(xbar.in);
  ipcq.port.bind(xbar.in);
  xbar.set_route_policy([this](const Location& d) {
    const bool mine = d.sip == self_.sip && d.cube == self_.cube && d.pe == self_.pe;
    if (mine && d.space == Space::kHbm) return kHbmPort;
    if (mine && d.space == Space::kTcm) return kTcmPort;
    if (mine && d.space == Space::kIpcq) return kIpcqPort;
    return kUplinkPort;
  });
  // Stage sockets, EngineKind order: dma, tcm, gemm, math, ipcq.
  PeEngine* engines[kNumEngineKinds] = {&dma, &tcm, &gemm, &math, &ipcq};
  for (PeEngine* from : engines)
    for (PeEngine* to : engines) from->stage_out.bind(to->stage_in);
  for (PeEngine* to : engines) {
    scheduler.stage_out.bind(to->stage_in);
    cpu.stage_out.bind(to->stage_in);
  }
  cpu.cmd_out.bind(scheduler.cmd_in);
  // Streamed stages are served by timer lanes (PeEngine::stream_end): not
  // with a MATH engine of another kind (RTL, registered) on this PE.
  dma.set_stream_tail(cfg.pe.hbm.num_pcs);
  stream_gemm_ = cfg.pe.scheduler.gemm_plan == GemmPlan::kStream &&
                 (cfg.pe.math.impl == "tlm" ||
                  !rtl_pes_selects(cfg.pe.math.rtl_pes, self.sip, self.cube, self.pe));
  scheduler.set_stream_gemm(stream_gemm_);
}

std::vector<PeEngine*> Pe::engines() {
  return {&dma, &tcm, &gemm, &math, &ipcq};
}

void Pe::set_op_log(OpLog* log) {
  for (PeEngine* e : engines()) e->set_op_log(log);
  op_logged_ = log != nullptr;
  scheduler.set_operand_views(op_logged_ || data_);
}

}  // namespace kb

namespace kb {

void Pe::set_data_mode(bool on) {
  data_ = on ? std::make_unique<PeData>(tcm.dma_port.store(), self_) : nullptr;
  for (PeEngine* e : engines()) e->set_data(data_.get());
  scheduler.set_operand_views(op_logged_ || on);
  scheduler.set_stream_gemm(stream_gemm_ && !on);
  hbm.set_data_mode(on);
  tcm.dma_port.set_data_mode(on);
  dma.set_data_mode(on);
}

}  // namespace kb
