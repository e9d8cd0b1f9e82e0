// The platform as a library: elaborates the module tree of one topology and
// runs it. One Platform per process (SystemC elaborates once per process);
// successive experiments on the same hardware are successive run() windows.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/common/address_map.h"
#include "platform/config/topology_config.h"
#include "platform/output/energy_report.h"

namespace kb {

class System;
class Pe;
class Link;
class OpLog;
class Instrumented;
struct DepthTrack;

struct PeId {
  unsigned sip = 0, cube = 0, pe = 0;
};

// The route a transaction from a PE to an address takes, as the routers see it.
struct FabricPath {
  std::vector<const Link*> links;  // request direction, in order
  std::string endpoint;            // hierarchical name of the target
};

class Platform {
 public:
  explicit Platform(const TopologyConfig& cfg);
  ~Platform();
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;

  const TopologyConfig& config() const { return cfg_; }
  const AddressMap& address_map() const { return map_; }
  System& system() { return *system_; }
  Pe& pe(const PeId& id);

  // Switches every memory to data mode (real bytes move; timing unchanged).
  // Every memory starts in timing mode; asking for the mode already set
  // walks nothing.
  void set_data_mode(bool on);

  // Runs the simulation until no activity is left; returns simulated ns now.
  // If a firmware kernel is still blocked when nothing is left to happen (a
  // recv from a peer that never sends, say), throws SimulationError naming
  // every waiting PE and what it waits for. After a clean run every PE_IPCQ
  // drops its rings, so the next launch opens its own.
  double run();
  double now_ns() const;

  // Each run() is a window of simulated time: a bench's point, or a step of
  // it. A bench may name the next run (e.g. "ring 64KiB"); an unnamed run is
  // "run N". The windows go into the JSON result ("runs"), the trace (an
  // instant marker at each start) and the VCD ("system.phase": the number of
  // the run in progress or last finished, from 1), each with its own share of
  // the statistics.
  struct RunWindow {
    std::string label;
    double start_ns = 0, end_ns = 0;
    // What the window added to stats(): every additive counter that moved
    // (maxima, peaks and utilisations left out), by module.
    nlohmann::json stats = nlohmann::json::object();
    // The commands each PE's firmware issued in the window, by PE path:
    // [first, last] command id (ids are per PE; the op log's cmd_id).
    nlohmann::json cmd_ids = nlohmann::json::object();
  };
  void name_next_run(std::string label) { next_run_label_ = std::move(label); }
  // A window's stats cost two stats() calls (milliseconds on a big
  // platform): simspeed, which times run(), turns them off.
  void set_run_stats_enabled(bool on) { run_stats_ = on; }
  const std::vector<RunWindow>& runs() const { return runs_; }
  const unsigned& phase() const { return phase_; }

  FabricPath route(const PeId& from, uint64_t addr) const;

  // Backdoor access (TLM transport_dbg from the host, through the fabric):
  // no simulated time passes. Throws std::invalid_argument naming the address
  // when it is unmapped or out of range.
  void debug_write(uint64_t addr, const uint8_t* data, uint64_t len);
  void debug_read(uint64_t addr, uint8_t* data, uint64_t len);
  // Ends elaboration (a zero-time start) if nothing has run yet. Tracing
  // (VcdTracer) must be set up before this.
  void finish_elaboration();

  // End-of-run statistics per module with any activity, keyed by hierarchical
  // name. A module that spent dynamic energy also reports energy_dynamic_pj
  // and energy_static_pj in the group named after it.
  nlohmann::json stats() const;
  // Energy so far: every module's dynamic energy and static power, by class
  // (models/common/energy.h), and the static power of the modules stats()
  // leaves out (they spent no dynamic energy). With a `scope` (a hierarchical
  // name such as "system.sip0.cube0.pe0"), only that module and those below it.
  EnergySnapshot energy(const std::string& scope = "") const;
  // Every module that reports statistics or energy, with its hierarchical
  // name, in tree order: collected once (the tree is fixed after elaboration).
  const std::vector<std::pair<std::string, const Instrumented*>>& instrumented() const;
  // Turns on each cube's PowerMeter (power over time in the VCD and the
  // trace); call before running. It changes no timing.
  void enable_power_meters();
  // Each cube's power over time so far: its hierarchical name, the bin width
  // (ns), its static power (mW) and its dynamic energy per bin (pJ).
  struct PowerTrack {
    std::string cube;
    double bin_ns = 0, static_mw = 0;
    std::vector<double> bins_pj;
  };
  std::vector<PowerTrack> power_tracks();
  // Records the depth over time of every service queue (HBM pseudo-channel,
  // link direction's wire, memory port) whose hierarchical name `keep`
  // accepts; call before running. It changes no timing.
  void enable_queue_depth_tracks(const std::function<bool(const std::string&)>& keep);
  // Those queues' depths so far (samples where the depth changes), by name,
  // in tree order; only the queues that had a request.
  struct QueueTrack {
    std::string queue;
    const DepthTrack* track;
  };
  std::vector<QueueTrack> queue_depth_tracks() const;
  // Every counter stats() can report, with its unit and description, once per
  // kind of module (kernbench --describe-stats).
  std::string describe_stats() const;

  // Bytes carried so far, summed over link directions (request and response
  // payload): every link, the cube<->cube links alone and the SIP<->SIP links alone.
  struct Traffic {
    uint64_t link_bytes = 0, cube_link_bytes = 0, sip_link_bytes = 0;
  };
  Traffic traffic() const;
  // Visits every PE in (sip, cube, pe) order.
  void for_each_pe(const std::function<void(Pe&)>& fn);

  // One record per engine stage, for every PE (see models/trace/op_log.h).
  OpLog& op_log() { return *op_log_; }
  // Recording is on from construction; off, the engines record nothing.
  void set_op_log_enabled(bool on);
  bool op_log_enabled() const { return op_log_enabled_; }

  // A one-screen description: SIPs, cubes, PEs, links and bandwidths, and
  // what a kernel gets of each PE's memories (describe_pe_memory,
  // platform/fabric/pe.h: the TCM's split, the HBM and SRAM beside PE_IPCQ's
  // rings). kernbench --check-topology prints it.
  std::string describe() const;

 private:
  void check_drained();

  TopologyConfig cfg_;
  AddressMap map_;
  std::unique_ptr<OpLog> op_log_;
  bool op_log_enabled_ = true;
  bool power_meters_on_ = false;
  std::vector<RunWindow> runs_;
  std::vector<std::pair<std::string, std::unique_ptr<DepthTrack>>> depth_tracks_;
  std::string next_run_label_;
  bool data_mode_ = false;
  unsigned phase_ = 0;
  bool run_stats_ = true;
  mutable std::vector<std::pair<std::string, const Instrumented*>> instrumented_;
  std::unique_ptr<System> system_;
};

TopologyShape shape_of(const TopologyConfig& cfg);

}  // namespace kb
