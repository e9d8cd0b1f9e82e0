// Validated runtime configuration of one platform (the second config layer).
//
// The YAML loader (topology_loader.h) parses a topology file into optional
// fields, applies defaults and `--set` overrides, validates every value and
// converts units exactly once into this struct, composed of the parameter
// structs each model block owns (models/<block>/<block>_config.h).
// Conventions, everywhere:
//   sizes      bytes (binary prefixes in YAML: KiB, MiB, GiB)
//   bandwidth  GB/s, decimal: 1 GB/s = 1e9 B/s = 1 B/ns
//   durations  ns (converted to sc_time by models/common/sim_time.h)
// Nothing in here includes SystemC.
#pragma once

#include <cstdint>
#include <string>

// Each model block owns its parameters (units and meaning beside each field).
#include "models/commands/cost_model_config.h"
#include "models/cpu/cpu_config.h"
#include "models/dma/dma_config.h"
#include "models/gemm/gemm_config.h"
#include "models/hbm/hbm_config.h"
#include "models/ipcq/ipcq_config.h"
#include "models/link/link_config.h"
#include "models/math/math_config.h"
#include "models/scheduler/scheduler_config.h"
#include "models/tcm/tcm_config.h"
#include "models/topology/topology_kind.h"

namespace kb {

// True when `spec` (MathConfig::rtl_pes) selects PE (sip, cube, pe).
bool rtl_pes_selects(const std::string& spec, unsigned sip, unsigned cube, unsigned pe);
// "" when `spec` is well formed, else what is wrong with it. With the
// topology's SIP, cubes-per-SIP and PEs-per-cube counts (sips > 0), a
// selector naming a PE that does not exist is wrong too.
std::string rtl_pes_error(const std::string& spec, unsigned sips = 0, unsigned cubes = 0,
                          unsigned pes = 0);
// Whether this build has the RTL co-simulation path (Verilator was found).
bool rtl_cosim_available();

struct PeConfig {
  double clock_ghz = 0;        // GHz, PE clock (cycles <-> ns)
  double xbar_latency_ns = 0;  // ns, PE-local crossbar, per traversal
  HbmConfig hbm;
  TcmConfig tcm;
  DmaConfig dma;
  CpuConfig cpu;
  GemmConfig gemm;
  MathConfig math;
  SchedulerConfig scheduler;
  CostModelConfig cost_model;
  IpcqConfig ipcq;
};

struct SramConfig {
  uint64_t size_bytes = 0;
  double bandwidth_gbps = 0;
  double latency_ns = 0;
};

struct CubeConfig {
  unsigned pes = 0;              // PEs per cube
  double router_latency_ns = 0;  // cube router, per traversal
  LinkConfig pe_link;            // PE <-> cube router, each direction
  SramConfig sram;               // shared by the cube's PEs
};

struct SipConfig {
  unsigned cubes_x = 0;
  unsigned cubes_y = 0;
  CubeTopology topology{};
  LinkConfig cube_link;       // cube <-> cube, each direction
  unsigned io_cube = 0;       // cube whose router attaches to the SIP I/O hub
  LinkConfig io_link;         // io cube router <-> SIP hub, each direction
  double hub_latency_ns = 0;  // SIP I/O hub, per traversal
};

struct SystemConfig {
  unsigned n_sips = 0;
  SipTopology sip_topology = SipTopology::kRing;
  LinkConfig sip_link;    // SIP hub <-> SIP hub, each direction
  unsigned host_sip = 0;  // the SIP whose hub the host link attaches to
};

struct HostConfig {
  uint64_t memory_bytes = 0;
  double memory_bandwidth_gbps = 0;
  double memory_latency_ns = 0;
  LinkConfig h2d;  // host -> device
  LinkConfig d2h;  // device -> host (never faster than h2d)
};

struct TopologyConfig {
  std::string name;    // `name:` in the YAML
  std::string source;  // file path, or "<embedded ahbm_1sip.yaml>"
  SystemConfig system;
  SipConfig sip;
  CubeConfig cube;
  PeConfig pe;
  HostConfig host;

  unsigned cubes_per_sip() const { return sip.cubes_x * sip.cubes_y; }
  unsigned pes_per_sip() const { return cubes_per_sip() * cube.pes; }
  unsigned total_pes() const { return system.n_sips * pes_per_sip(); }
  double pe_hbm_bandwidth_gbps() const { return pe.hbm.num_pcs * pe.hbm.pc_bandwidth_gbps; }
  // The facts of a SIP that code below platform/ needs (e.g. fw::CollectiveGroup).
  SipShape sip_shape() const { return {sip.cubes_x, sip.cubes_y, sip.topology, cube.pes}; }
};

}  // namespace kb
