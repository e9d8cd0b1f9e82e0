// One PE: PE_CPU, PE_SCHEDULER, the stage engines (PE_DMA, PE_TCM, PE_GEMM,
// PE_MATH, PE_IPCQ), the HBM controller of its HBM slice and its crossbar.
// Crossbar ports: 0 = own HBM, 1 = own TCM (DMA port), 2 = own PE_IPCQ
// registers, 3 = uplink to the cube router (bound by the Cube). Everything not in
// this PE leaves on the uplink.
// Stage sockets: every engine, the scheduler and the CPU reach every engine
// in EngineKind order.
#pragma once

#include <memory>
#include <systemc>

#include "models/common/address_map.h"
#include "models/cpu/pe_cpu.h"
#include "models/dma/pe_dma.h"
#include "models/gemm/pe_gemm.h"
#include "models/hbm/hbm_ctrl.h"
#include "models/ipcq/pe_ipcq.h"
#include "models/math/pe_math.h"
#include "models/pe/pe_data.h"
#include "models/router/router.h"
#include "models/scheduler/pe_scheduler.h"
#include "models/tcm/pe_tcm.h"
#include "platform/config/topology_config.h"

namespace kb {

class OpLog;

// Bytes PE_IPCQ reserves at the top of each PE's HBM slice and of each cube's
// SRAM (the host allocators stay below them).
uint64_t ipcq_hbm_reserved(const TopologyConfig& cfg);
uint64_t ipcq_sram_reserved(const TopologyConfig& cfg);
// What the TCM arena holds for firmware and host tensors: the TCM minus the
// scheduler's staging buffers and PE_IPCQ's ring region at its top.
uint64_t tcm_arena_capacity(const TopologyConfig& cfg);
uint64_t tcm_staging_bytes(const TopologyConfig& cfg);
// One PE's ring region in the cube SRAM: ring_bytes, capped at half its share.
uint64_t ipcq_sram_share(const TopologyConfig& cfg);

// The limits a kernel meets in a PE's memories, from the configuration alone
// (ARCHITECTURE.md §1.2; docs/library.md, "Limits a kernel meets"): the
// TCM's split, and what of the PE's HBM slice and of its cube's SRAM the
// host allocators hand out beside PE_IPCQ's rings at their tops.
struct PeMemoryLimits {
  uint64_t tcm_bytes = 0;
  TcmRegions tcm;  // arena | IPCQ rings | staging slots, as PeTcm splits it
  unsigned staging_slots = 0;
  uint64_t staging_slot_bytes = 0;  // an A, B and C tile at 4 bytes per element
  uint64_t hbm_bytes = 0, hbm_ipcq_bytes = 0, hbm_tensor_bytes = 0;     // per PE
  uint64_t sram_bytes = 0, sram_ipcq_bytes = 0, sram_tensor_bytes = 0;  // per cube
};
PeMemoryLimits pe_memory_limits(const TopologyConfig& cfg);
// Those limits as lines of text, one a region, each indented by `indent`
// (Platform::describe, kernbench --describe-topology).
std::string describe_pe_memory(const TopologyConfig& cfg, const std::string& indent);

class Pe : public sc_core::sc_module {
 public:
  static constexpr unsigned kHbmPort = 0, kTcmPort = 1, kIpcqPort = 2, kUplinkPort = 3;

  Pe(const sc_core::sc_module_name& name, const TopologyConfig& cfg, const AddressMap& map,
     const Location& self);

  const Location& location() const { return self_; }
  // The op log the engines record into (null: none). The scheduler's GEMM
  // tiles keep their operand views while either this or data mode reads them.
  void set_op_log(OpLog* log);
  // Data mode: memories hold bytes and the engines compute.
  void set_data_mode(bool on);
  // The stage engines, in EngineKind order.
  std::vector<PeEngine*> engines();

  Router xbar;
  HbmCtrl hbm;
  PeTcm tcm;
  PeDma dma;
  PeGemm gemm;

 private:
  // The TLM model, or the RTL bridge (models/rtl/pe_math_rtl.h) when
  // pe.math.impl is rtl or scoreboard and pe.math.rtl_pes selects this PE.
  std::unique_ptr<PeMath> math_owner_;

 public:
  PeMath& math;
  PeIpcq ipcq;
  PeScheduler scheduler;
  PeCpu cpu;

 private:
  Location self_;
  std::unique_ptr<PeData> data_;
  bool op_logged_ = true;     // until set_op_log says otherwise
  bool stream_gemm_ = false;  // pe.scheduler.gemm_plan: stream (off in data mode)
};

}  // namespace kb
