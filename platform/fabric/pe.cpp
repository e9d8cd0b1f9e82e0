#include "platform/fabric/pe.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <vector>

#include "models/common/errors.h"
#include "models/topology/fabric_route.h"
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
  return tcm_regions(cfg.pe.tcm.size_bytes, tcm_staging_bytes(cfg), cfg.pe.ipcq.ring_bytes)
      .arena_bytes;
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

PeMemoryLimits pe_memory_limits(const TopologyConfig& cfg) {
  PeMemoryLimits m;
  m.tcm_bytes = cfg.pe.tcm.size_bytes;
  m.tcm = tcm_regions(m.tcm_bytes, tcm_staging_bytes(cfg), cfg.pe.ipcq.ring_bytes);
  m.staging_slots = cfg.pe.scheduler.staging_buffers;
  m.staging_slot_bytes = tiling_of(cfg).slot_bytes();
  m.hbm_bytes = cfg.pe.hbm.size_bytes;
  m.hbm_ipcq_bytes = ipcq_hbm_reserved(cfg);
  m.hbm_tensor_bytes = m.hbm_bytes - m.hbm_ipcq_bytes;  // the loader keeps the rings below half
  m.sram_bytes = cfg.cube.sram.size_bytes;
  m.sram_ipcq_bytes = ipcq_sram_reserved(cfg);
  m.sram_tensor_bytes = m.sram_bytes - m.sram_ipcq_bytes;  // at most half of it
  return m;
}

std::string describe_pe_memory(const TopologyConfig& cfg, const std::string& indent) {
  const PeMemoryLimits m = pe_memory_limits(cfg);
  const TcmRegions& t = m.tcm;
  const TilingConfig tiling = tiling_of(cfg);
  auto range = [](uint64_t from, uint64_t bytes) {
    return "[" + std::to_string(from) + ", " + std::to_string(from + bytes) + ")";
  };
  struct Row {
    const char* what;
    std::string bytes, text;
  };
  std::vector<Row> rows;
  auto row = [&](const char* what, uint64_t bytes, const std::string& text) {
    rows.push_back({what, std::to_string(bytes) + " B", text});
  };
  row("TCM arena", t.arena_bytes,
      range(0, t.arena_bytes) +
          " the kernel arena: every tl allocation (tl.empty, tl.load, outputs, recipe scratch, "
          "reduce staging) and HostRuntime::alloc_tcm");
  row("TCM IPCQ", t.ipcq_bytes,
      range(t.ipcq_offset, t.ipcq_bytes) + " PE_IPCQ receive rings (pe.ipcq.ring_bytes)");
  row("TCM staging", t.staging_bytes,
      range(t.staging_offset, t.staging_bytes) + " PE_SCHEDULER staging: " +
          std::to_string(m.staging_slots) + " slots x " + std::to_string(m.staging_slot_bytes) +
          " B (pe.scheduler.staging_buffers; an A, B and C tile of " +
          std::to_string(tiling.tile_m) + "x" + std::to_string(tiling.tile_k) + "x" +
          std::to_string(tiling.tile_n) + " at 4 B an element)");
  row("HBM tensors", m.hbm_tensor_bytes,
      range(0, m.hbm_tensor_bytes) + " of the PE's HBM slice: HostRuntime::alloc_hbm");
  row("HBM IPCQ", m.hbm_ipcq_bytes,
      range(m.hbm_tensor_bytes, m.hbm_ipcq_bytes) +
          " PE_IPCQ receive rings at the slice's top (pe.ipcq.ring_bytes)");
  row("SRAM tensors", m.sram_tensor_bytes,
      range(0, m.sram_tensor_bytes) +
          " of the cube's SRAM, shared by its PEs: HostRuntime::alloc_sram");
  row("SRAM IPCQ", m.sram_ipcq_bytes,
      range(m.sram_tensor_bytes, m.sram_ipcq_bytes) + " PE_IPCQ receive rings, " +
          std::to_string(cfg.cube.pes) + " PEs x " + std::to_string(ipcq_sram_share(cfg)) +
          " B (pe.ipcq.ring_bytes, at most half a PE's share)");
  size_t w_what = 0, w_bytes = 0;
  for (const Row& r : rows) {
    w_what = std::max(w_what, std::string(r.what).size());
    w_bytes = std::max(w_bytes, r.bytes.size());
  }
  std::ostringstream os;
  os << std::left;
  for (const Row& r : rows)
    os << indent << std::setw(static_cast<int>(w_what + 1)) << r.what << std::right
       << std::setw(static_cast<int>(w_bytes)) << r.bytes << std::left << "  " << r.text << "\n";
  return os.str();
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
    if (FabricRouting::xbar_hop(self_, d).exit == RouteExit::kPeUp) return kUplinkPort;
    if (d.space == Space::kHbm) return kHbmPort;
    if (d.space == Space::kTcm) return kTcmPort;
    return kIpcqPort;
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
