// Validated runtime configuration of one platform (the second config layer).
//
// The YAML loader (topology_loader.h) parses a topology file into optional
// fields, applies defaults and `--set` overrides, validates every value and
// converts units exactly once into this struct. Conventions, everywhere:
//   sizes      bytes (binary prefixes in YAML: KiB, MiB, GiB)
//   bandwidth  GB/s, decimal: 1 GB/s = 1e9 B/s = 1 B/ns
//   durations  ns (converted to sc_time by models/common/sim_time.h)
// Nothing in here includes SystemC.
#pragma once

#include <cstdint>
#include <string>

namespace kb {

enum class CubeTopology { kMesh, kRing, kTorus2d };
enum class SipTopology { kRing, kFull };
// How HBM addresses map to pseudo-channels (see models/hbm/pc_mapping.h).
enum class PcMapping { kInterleave, kXor };
// Which implementation serves a PE's PE_MATH stages (issue 8): the TLM model,
// the verilated RTL vector unit behind a bridge, or the RTL with the TLM
// numerics checked beside it on every stage (scoreboard).
enum class MathImpl { kTlm, kRtl, kScoreboard };

const char* to_string(CubeTopology t);
const char* to_string(SipTopology t);
const char* to_string(PcMapping m);
const char* to_string(MathImpl m);

// One direction of a link: a FIFO serialiser (bandwidth) followed by a
// propagation latency. Every packet pays header_bytes on the wire.
struct LinkConfig {
  double bandwidth_gbps = 0;  // payload bytes per ns on the wire
  double latency_ns = 0;      // propagation, paid after serialisation
  uint64_t packet_bytes = 0;  // max payload per packet
  uint64_t header_bytes = 0;  // wire overhead per packet
};

struct HbmConfig {
  uint64_t size_bytes = 0;                 // capacity of one PE's HBM slice
  unsigned num_pcs = 0;                    // pseudo-channels
  double pc_bandwidth_gbps = 0;            // per pseudo-channel
  uint64_t interleave_bytes = 0;           // address interleave across PCs
  double access_latency_ns = 0;            // pipelined latency after a PC's service
  unsigned queue_depth = 0;                // request-queue entries per PC (0 = unbounded)
  PcMapping pc_mapping = PcMapping::kXor;  // offset -> pseudo-channel
};

struct TcmConfig {
  uint64_t size_bytes = 0;
  double bandwidth_gbps = 0;  // DMA port (and FETCH/STORE) bandwidth
  double latency_ns = 0;
};

struct DmaConfig {
  uint64_t burst_bytes = 0;      // a transfer is split into bursts of this size
  unsigned max_outstanding = 0;  // bursts in flight per channel
  double setup_ns = 0;           // per transfer, before its first burst issues
};

// PE_CPU dispatch cost (SPEC §2): what the firmware pays to issue a command,
// in PE clock cycles, as a function of the command's logical_bytes.
struct CostModelConfig {
  double fixed_per_composite_cycles = 40;     // per composite command
  double fixed_per_single_op_cmd_cycles = 8;  // per single-op command
  double per_byte_cycles = 0.0625;            // per logical byte of the descriptor
  uint64_t max_composite_logical_bytes = 1024;
};

struct CpuConfig {
  uint64_t stack_bytes = 0;  // firmware thread stack
};

struct GemmConfig {
  double peak_tflops = 0;  // 1 TFLOP/s = 1000 flop/ns
  unsigned tile_m = 0, tile_k = 0, tile_n = 0;
};

struct MathConfig {
  unsigned lanes = 0;  // elements per cycle
  MathImpl impl = MathImpl::kTlm;
  // The PEs that get `impl` (the others keep the TLM model): "*" for all,
  // else a comma-separated list of "S.C.P" selectors whose fields are a
  // number or "*", e.g. "0.0.0, 0.1.*". Validated by the loader.
  std::string rtl_pes = "*";
};

// True when `spec` (MathConfig::rtl_pes) selects PE (sip, cube, pe).
bool rtl_pes_selects(const std::string& spec, unsigned sip, unsigned cube, unsigned pe);
// "" when `spec` is well formed, else what is wrong with it. With the
// topology's SIP, cubes-per-SIP and PEs-per-cube counts (sips > 0), a
// selector naming a PE that does not exist is wrong too.
std::string rtl_pes_error(const std::string& spec, unsigned sips = 0, unsigned cubes = 0,
                          unsigned pes = 0);
// Whether this build has the RTL co-simulation path (Verilator was found).
bool rtl_cosim_available();

struct SchedulerConfig {
  unsigned staging_buffers = 0;  // tile tokens in flight per PE
};

// PE_IPCQ (models/ipcq/pe_ipcq.h): per-peer receive rings of `slots` slots
// of `slot_bytes`, carved from a `ring_bytes` region the PE reserves in each
// memory a ring may live in (top of its TCM below the staging buffers, top of
// its HBM slice, its share of the top of the cube SRAM).
struct IpcqConfig {
  unsigned slots = 0;          // slots per receive ring (= credits of its sender)
  uint64_t slot_bytes = 0;     // bytes per slot; messages are chunked to this
  uint64_t ring_bytes = 0;     // receive-ring region per memory kind, per PE
  uint64_t message_bytes = 0;  // wire size of a doorbell / credit / grant message
};

struct PeConfig {
  double clock_ghz = 0;
  double xbar_latency_ns = 0;  // PE-local crossbar, per traversal
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
  CubeTopology topology = CubeTopology::kTorus2d;
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
};

}  // namespace kb
