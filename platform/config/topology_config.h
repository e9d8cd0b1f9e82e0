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
#include "models/common/address_map.h"
#include "models/common/knob_spec.h"
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

class FabricRouting;

// True when `spec` (MathConfig::rtl_pes) selects PE (sip, cube, pe).
bool rtl_pes_selects(const std::string& spec, unsigned sip, unsigned cube, unsigned pe);
// "" when `spec` is well formed, else what is wrong with it. With the
// topology's SIP, cubes-per-SIP and PEs-per-cube counts (sips > 0), a
// selector naming a PE that does not exist is wrong too.
std::string rtl_pes_error(const std::string& spec, unsigned sips = 0, unsigned cubes = 0,
                          unsigned pes = 0);
// Whether this build has the RTL co-simulation path (Verilator was found).
bool rtl_cosim_available();

// The knobs above the blocks. Each struct's fields have their defaults as
// member initialisers (a link's and a memory's per instance) and visit() lists
// them in the order of the schema: the YAML key, description, unit and bound
// (models/common/knob_spec.h). A section's label prefixes its knobs'
// descriptions in --describe-topology.

// The descriptions of a router's energy knobs (pe.xbar_energy, cube.router_energy,
// sip.hub_energy).
template <class V>
void visit_router_energy(V& v, BitEnergyConfig& e) {
  e.visit(v,
          "energy per bit through the router (each traversal, data bytes of the transaction), "
          "pJ/bit (defaults: PE crossbar 0.05, cube router and SIP hub 0.2: on-chip router "
          "traversal, ORION 2.0-class estimates)",
          "static power, mW (defaults: PE crossbar 5, cube router and SIP hub 20: estimates)");
}

struct PeConfig {
  double clock_ghz = 1.0;
  double xbar_latency_ns = 0.5;
  BitEnergyConfig xbar_energy{0.05, 5};
  HbmConfig hbm;
  TcmConfig tcm;
  DmaConfig dma;
  CpuConfig cpu;
  GemmConfig gemm;
  MathConfig math;
  SchedulerConfig scheduler;
  CostModelConfig cost_model;
  IpcqConfig ipcq;

  template <class V>
  void visit(V& v) {
    v.real(clock_ghz,
           KnobSpec{"clock_ghz", "PE clock, GHz (cycles <-> ns)", Bound::kPositive}.range(
               1e-3, 100, "GHz: 1 MHz to 100 GHz"));
    v.real(xbar_latency_ns,
           {"xbar_latency_ns", "PE-local crossbar latency per traversal, ns", Bound::kNonNegative});
    v.section("xbar_energy", "PE crossbar", [&] { visit_router_energy(v, xbar_energy); });
    v.section("hbm", "HBM slice", [&] { hbm.visit(v); });
    v.section("tcm", "TCM scratchpad (DMA port and FETCH/STORE)", [&] { tcm.visit(v); });
    v.section("dma", "DMA", [&] { dma.visit(v); });
    v.section("cost_model", "PE_CPU dispatch", [&] { cost_model.visit(v); });
    v.section("cpu", "PE_CPU", [&] { cpu.visit(v); });
    v.section("gemm", "PE_GEMM", [&] { gemm.visit(v); });
    v.section("math", "PE_MATH", [&] { math.visit(v); });
    v.section("scheduler", "PE_SCHEDULER", [&] { scheduler.visit(v); });
    v.section("ipcq", "PE_IPCQ", [&] { ipcq.visit(v); });
  }
};

struct SramConfig {
  uint64_t size_bytes = uint64_t{8} << 20;
  double bandwidth_gbps = 512;
  double latency_ns = 10;
  MemoryEnergyConfig energy{12.5, 12.5, 100};

  template <class V>
  void visit(V& v) {
    visit_memory_port(v, size_bytes, bandwidth_gbps, latency_ns);
    v.section("energy", "cube SRAM energy", [&] {
      energy.visit(v,
                   "per byte read, pJ/B (default 12.5: 100 pJ per 64-bit access of a 1 MB SRAM, "
                   "Horowitz, ISSCC 2014, 45 nm)",
                   "per byte written, pJ/B (default 12.5: as a read, same source)",
                   "static power (leakage), mW (default 100: an estimate for 8 MiB of SRAM)");
    });
  }
};

struct CubeConfig {
  unsigned pes = 8;
  double router_latency_ns = 2;
  BitEnergyConfig router_energy{0.2, 20};
  LinkConfig pe_link{256, 2, 256, 0, {0.1, 0}};  // PE <-> cube router, each direction
  SramConfig sram;                               // shared by the cube's PEs

  template <class V>
  void visit(V& v) {
    v.count(pes, {"pes", "PEs per cube", Bound::kAtLeastOne, addr_bits::kMaxPes,
                  "the address map has 6 PE bits"});
    v.real(router_latency_ns,
           {"router_latency_ns", "cube router latency per traversal, ns", Bound::kNonNegative});
    v.section("router_energy", "cube router", [&] { visit_router_energy(v, router_energy); });
    v.section("pe_link", "PE<->cube router link", [&] { pe_link.visit(v); });
    v.section("sram", "cube SRAM (shared by its PEs)", [&] { sram.visit(v); });
  }
};

struct SipConfig {
  unsigned cubes_x = 4;
  unsigned cubes_y = 4;
  CubeTopology topology = CubeTopology::kTorus2d;
  LinkConfig cube_link{128, 5, 256, 0, {0.5, 5}};  // cube <-> cube, each direction
  unsigned io_cube = 0;                            // cube whose router attaches to the SIP I/O hub
  LinkConfig io_link{128, 10, 4096, 0, {0.5, 5}};  // io cube router <-> SIP hub, each direction
  double hub_latency_ns = 5;
  BitEnergyConfig hub_energy{0.2, 20};

  template <class V>
  void visit(V& v) {
    v.count(cubes_x, {"cubes_x", "cube grid width", Bound::kAtLeastOne, addr_bits::kMaxCubes,
                      "the address map has 8 cube bits"});
    v.count(cubes_y, {"cubes_y", "cube grid height", Bound::kAtLeastOne, addr_bits::kMaxCubes,
                      "the address map has 8 cube bits"});
    v.choice(topology, kCubeTopologyNames, {"topology", "cube interconnect inside a SIP"});
    v.count(io_cube,
            {"io_cube", "cube (row-major y*cubes_x+x) whose router attaches to the SIP I/O hub"});
    v.real(hub_latency_ns,
           {"hub_latency_ns", "SIP I/O hub latency per traversal, ns", Bound::kNonNegative});
    v.section("hub_energy", "SIP I/O hub", [&] { visit_router_energy(v, hub_energy); });
    v.section("cube_link", "cube<->cube link", [&] { cube_link.visit(v); });
    v.section("io_link", "io cube<->SIP hub link", [&] { io_link.visit(v); });
  }
};

struct SystemConfig {
  unsigned n_sips = 1;
  SipTopology sip_topology = SipTopology::kRing;
  LinkConfig sip_link{64, 100, 4096, 0, {5, 100}};  // SIP hub <-> SIP hub, each direction
  unsigned host_sip = 0;                            // the SIP whose hub the host link attaches to

  template <class V>
  void visit(V& v) {
    v.count(n_sips, {"n_sips", "number of SIPs", Bound::kAtLeastOne, addr_bits::kMaxSips,
                     "the address map has 6 SIP bits"});
    v.choice(sip_topology, kSipTopologyNames,
             {"sip_topology", "SIP interconnect: ring (neighbours) or full (all-to-all)"});
    v.count(host_sip, {"host_sip", "SIP whose I/O hub the host link attaches to (< n_sips)"});
    v.section("sip_link", "SIP<->SIP link", [&] { sip_link.visit(v); });
  }
};

struct HostConfig {
  uint64_t memory_bytes = uint64_t{16} << 30;
  double memory_bandwidth_gbps = 100;
  double memory_latency_ns = 80;
  MemoryEnergyConfig memory_energy{160, 160, 0};
  LinkConfig h2d{64, 250, 4096, 0, {5, 100}};  // host -> device
  LinkConfig d2h{32, 250, 4096, 0, {5, 100}};  // device -> host (never faster than h2d)

  template <class V>
  void visit(V& v) {
    v.size(memory_bytes, {"memory_bytes", "host memory capacity", Bound::kAtLeastOne,
                          addr_bits::kMaxRegionBytes, kRegionNote});
    v.real(memory_bandwidth_gbps,
           {"memory_bandwidth_gbps", "host memory bandwidth, GB/s", Bound::kPositive});
    v.real(memory_latency_ns,
           {"memory_latency_ns", "host memory access latency, ns", Bound::kNonNegative});
    v.section("memory_energy", "host memory", [&] {
      memory_energy.visit(v,
                          "energy per byte read, pJ/B (default 160: 1.3 nJ per 64-bit DRAM "
                          "access, the low end of Horowitz, ISSCC 2014)",
                          "energy per byte written, pJ/B (default 160: as a read, same source)",
                          "static power, mW (default 0: the host's memory is not the device's; "
                          "set it to count it)");
    });
    v.section("h2d", "host->device link", [&] { h2d.visit(v); });
    v.section("d2h", "device->host link (never faster than h2d)", [&] { d2h.visit(v); });
  }
};

struct TopologyConfig {
  std::string name = "unnamed";  // `name:` in the YAML
  std::string source;            // file path, "<embedded ahbm_1sip.yaml>" or "topologies/NAME.yaml
                                 // (embedded)"; not a knob
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
  // How the fabric routes (models/topology/fabric_route.h): the routers'
  // policies and the analytic models' paths both come from it.
  FabricRouting routing() const;

  // Every knob of a topology file, in schema order (the default of each is
  // its initialiser above or in its block).
  template <class V>
  void visit(V& v) {
    v.text(name, {"name", "topology name, shown in reports"});
    v.section("system", nullptr, [&] { system.visit(v); });
    v.section("host", nullptr, [&] { host.visit(v); });
    v.section("sip", nullptr, [&] { sip.visit(v); });
    v.section("cube", nullptr, [&] { cube.visit(v); });
    v.section("pe", nullptr, [&] { pe.visit(v); });
  }
};

}  // namespace kb
