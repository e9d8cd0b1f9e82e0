// PE_TCM: the PE's scratchpad. Three ports, each a serial FIFO worker at the
// TCM bandwidth: the DMA port (a TLM target reached through the PE
// crossbar), the FETCH unit (TCM -> engine) and the STORE unit (engine ->
// TCM). The arena allocator hands out TCM space to firmware; the top of the
// TCM is reserved for PE_SCHEDULER's staging buffers.
#pragma once

#include <memory>

#include "models/memory/memory_target.h"
#include "models/pe/pe_engine.h"
#include "models/tcm/tcm_arena.h"
#include "models/tcm/tcm_config.h"

namespace kb {

class PeTcm : public PeEngine {
 public:
  static constexpr unsigned kFetchLane = 0, kStoreLane = 1;

  PeTcm(const sc_core::sc_module_name& name, const TcmConfig& cfg, uint64_t staging_bytes,
        uint64_t ipcq_bytes = 0);

  MemoryTarget dma_port;
  TcmArena& arena() { return arena_; }
  uint64_t staging_offset() const { return staging_offset_; }  // start of the staging region
  uint64_t staging_bytes() const { return staging_bytes_; }
  uint64_t ipcq_offset() const { return ipcq_offset_; }  // start of the IPCQ ring region

  // FETCH reads and STORE writes at the TCM's energy per byte; the DMA
  // port's accesses and the static power are reported by dma_port.
  void report_energy(EnergySink& out) const override;

 protected:
  unsigned lane_of(const Stage& s) const override;
  double stage_energy_pj(const Stage& stage) const override;
  sc_core::sc_time service_time(const Stage& stage) const override;
  // Data mode: STORE writes the output tile (from the GEMM accumulator, or
  // the source tensor of a copy) into the TCM.
  void finish_service(TileToken& token, Stage& stage) override;

 private:
  mutable TransferTime stage_time_;  // service_time() is const
  MemoryEnergyConfig energy_;
  uint64_t staging_offset_, staging_bytes_, ipcq_offset_;
  TcmArena arena_;
};

}  // namespace kb
