#include "models/tcm/pe_tcm.h"

#include "models/common/energy.h"
#include "models/common/sim_time.h"
#include "models/pe/pe_data.h"

namespace kb {

TcmRegions tcm_regions(uint64_t size_bytes, uint64_t staging_bytes, uint64_t ipcq_bytes) {
  TcmRegions r;
  r.staging_offset = size_bytes > staging_bytes ? size_bytes - staging_bytes : 0;
  r.staging_bytes = size_bytes - r.staging_offset;
  r.ipcq_offset = r.staging_offset > ipcq_bytes ? r.staging_offset - ipcq_bytes : 0;
  r.ipcq_bytes = r.staging_offset - r.ipcq_offset;
  r.arena_bytes = r.ipcq_offset;
  return r;
}

PeTcm::PeTcm(const sc_core::sc_module_name& name, const TcmConfig& cfg, uint64_t staging_bytes,
             uint64_t ipcq_bytes)
    : PeEngine(name, EngineKind::kTcm, {"tcm.fetch", "tcm.store"}),
      dma_port("dma_port", cfg.size_bytes, cfg.bandwidth_gbps, cfg.latency_ns),
      stage_time_(cfg.bandwidth_gbps),
      energy_(cfg.energy),
      regions_(tcm_regions(cfg.size_bytes, staging_bytes, ipcq_bytes)),
      arena_(0, regions_.arena_bytes) {
  dma_port.set_energy(cfg.energy, EnergyClass::kTcm);
}

void PeTcm::report_energy(EnergySink& out) const {
  out.dynamic_pj(EnergyClass::kTcm,
                 energy_.dynamic_pj(lane_stats(kFetchLane).bytes, lane_stats(kStoreLane).bytes));
}

double PeTcm::stage_energy_pj(const Stage& stage) const {
  return stage.kind == StageKind::kStore ? energy_.dynamic_pj(0, stage.bytes)
                                         : energy_.dynamic_pj(stage.bytes, 0);
}

unsigned PeTcm::lane_of(const Stage& s) const {
  return s.kind == StageKind::kStore ? kStoreLane : kFetchLane;
}

sc_core::sc_time PeTcm::service_time(const Stage& stage) const {
  return stage_time_(stage.bytes);
}

}  // namespace kb

namespace kb {

void PeTcm::finish_service(TileToken& token, Stage& stage) {
  if (!data() || stage.kind != StageKind::kStore) return;
  try {
    if (stage.op_kind == "copy") {
      data()->write(stage.operands().output, data()->read(stage.operands().inputs.at(0)));
      return;
    }
    const PeData::TileKey key{token.cmd_id, stage.mi, stage.ni};
    auto it = data()->accumulators().find(key);
    if (it == data()->accumulators().end()) throw MathError("no accumulated tile to store");
    data()->write(stage.operands().out_view, it->second);
    data()->accumulators().erase(it);
  } catch (const MathError& e) {
    compute_fault(token, stage, e.what());
  }
}

}  // namespace kb
