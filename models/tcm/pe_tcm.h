// PE_TCM: the PE's scratchpad. Three ports, each a serial FIFO worker at the
// TCM bandwidth: the DMA port (a TLM target reached through the PE
// crossbar), the FETCH unit (TCM -> engine) and the STORE unit (engine ->
// TCM). The arena allocator hands out TCM space to firmware and the host;
// above it PE_IPCQ's ring region, and at the top PE_SCHEDULER's staging
// buffers (TcmRegions).
#pragma once

#include <memory>

#include "models/memory/memory_target.h"
#include "models/pe/pe_engine.h"
#include "models/tcm/tcm_arena.h"
#include "models/tcm/tcm_config.h"

namespace kb {

// The TCM's split, made once at construction (ARCHITECTURE.md §1.2), from
// offset 0 up: the arena (host and kernel tensors), PE_IPCQ's ring region,
// PE_SCHEDULER's staging slots at the top. A region the TCM has no room
// left for is cut to what is left, the arena first.
struct TcmRegions {
  uint64_t arena_bytes = 0;  // [0, arena_bytes)
  uint64_t ipcq_offset = 0, ipcq_bytes = 0;
  uint64_t staging_offset = 0, staging_bytes = 0;
};
TcmRegions tcm_regions(uint64_t size_bytes, uint64_t staging_bytes, uint64_t ipcq_bytes);

class PeTcm : public PeEngine {
 public:
  static constexpr unsigned kFetchLane = 0, kStoreLane = 1;

  PeTcm(const sc_core::sc_module_name& name, const TcmConfig& cfg, uint64_t staging_bytes,
        uint64_t ipcq_bytes = 0);

  MemoryTarget dma_port;
  TcmArena& arena() { return arena_; }
  // The TCM's split; the offsets start the staging and IPCQ ring regions.
  const TcmRegions& regions() const { return regions_; }
  uint64_t staging_offset() const { return regions_.staging_offset; }
  uint64_t staging_bytes() const { return regions_.staging_bytes; }
  uint64_t ipcq_offset() const { return regions_.ipcq_offset; }

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
  TcmRegions regions_;
  TcmArena arena_;
};

}  // namespace kb
