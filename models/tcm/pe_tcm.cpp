#include "models/tcm/pe_tcm.h"

#include "models/common/sim_time.h"

namespace kb {

PeTcm::PeTcm(const sc_core::sc_module_name& name, const TcmConfig& cfg, uint64_t staging_bytes)
    : PeEngine(name, EngineKind::kTcm, {"tcm.fetch", "tcm.store"}),
      dma_port("dma_port", cfg.size_bytes, cfg.bandwidth_gbps, cfg.latency_ns),
      bandwidth_gbps_(cfg.bandwidth_gbps),
      staging_offset_(cfg.size_bytes > staging_bytes ? cfg.size_bytes - staging_bytes : 0),
      staging_bytes_(staging_bytes),
      arena_(0, staging_offset_) {}

unsigned PeTcm::lane_of(const Stage& s) const {
  return s.kind == StageKind::kStore ? kStoreLane : kFetchLane;
}

sc_core::sc_time PeTcm::service_time(const Stage& stage) const {
  return transfer_time(stage.bytes, bandwidth_gbps_);
}

}  // namespace kb
