// Base of the PE's stage engines (PE_DMA, PE_TCM, PE_GEMM, PE_MATH).
//
// Tile tokens arrive on `stage_in` (a TLM b_transport that only posts the
// token: zero time) and leave on `stage_out`, which is bound to every engine
// of the PE in EngineKind order. An engine has one or more lanes; each lane
// is a serial server that serves one stage at a time in FIFO order, records
// it in the op log and hands the token to the engine of its next stage.
//
// A lane is no process: a token that finds it idle starts its service there
// and then, and the end of service is a calendar timer (models/common/
// calendar.h; a zero-time one later in the same delta, models/common/
// due_timers.h) that finishes the stage and starts the next queued one, so a
// stage costs no coroutine switch. An engine whose service must wait inside
// the kernel (the RTL vector unit clocks its pins) says so with
// serves_in_thread(); its lanes are then SC_THREADs, each started at its
// lane's first token, asleep on one event between stages. Both serve the same
// stages at the same instants. Engines that take their tokens themselves
// (PE_DMA, PE_IPCQ) use neither.
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/calendar.h"
#include "models/common/due_timers.h"
#include "models/common/instrumented.h"
#include "models/common/ring_queue.h"
#include "models/common/settled_peak.h"
#include "models/common/sim_time.h"
#include "models/pe/engine_targets.h"
#include "models/pe/stage.h"

namespace kb {

class OpLog;
class PeData;
class PowerMeter;

// Posts a token to an engine's stage_in over a TLM socket (zero time).
void post_token(tlm::tlm_fw_transport_if<>& engine, TileToken* token);

class PeEngine : public sc_core::sc_module, public Instrumented {
 public:
  tlm_utils::multi_passthrough_target_socket<PeEngine> stage_in;
  tlm_utils::multi_passthrough_initiator_socket<PeEngine> stage_out;

  EngineKind engine_kind() const { return kind_; }
  void set_op_log(OpLog* log) { op_log_ = log; }
  // Data mode: the PE's data (null = timing only).
  void set_data(PeData* data) { data_ = data; }
  const std::string& pe_path() const { return pe_path_; }
  // Draws each stage's energy on `meter` while it is served (power over time).
  void set_power_meter(PowerMeter* meter) { meter_ = meter; }

  struct LaneStats {
    uint64_t stages = 0;
    uint64_t bytes = 0;
    double busy_ns = 0;  // time with at least one stage in service (lane_stats())
    // Most stages queued or in service at once, each counted over
    // [arrival, end of service) (SettledPeak).
    unsigned max_queue = 0;
    std::string label;  // op-log engine name, e.g. "tcm.fetch"
  };
  unsigned num_lanes() const { return static_cast<unsigned>(lanes_.size()); }
  LaneStats lane_stats(unsigned lane) const {
    const Lane& l = *lanes_.at(lane);
    LaneStats s = l.stats;
    s.max_queue = l.depth.peak();
    s.busy_ns = to_ns(l.busy_time);
    return s;
  }
  // Traced into the VCD.
  const bool& lane_busy(unsigned lane) const { return lanes_.at(lane)->busy; }
  const unsigned& lane_depth(unsigned lane) const { return lanes_.at(lane)->depth.traced(); }
  const uint64_t& lane_cmd(unsigned lane) const { return lanes_.at(lane)->current_cmd; }

  // Instrumented: one group per lane that served a stage ("<PE>.<label>.stages");
  // per lane the signals busy, queue_depth and cmd_id.
  void report_stats(StatsSink& out, double now_ns) const override;
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;

 protected:
  PeEngine(const sc_core::sc_module_name& name, EngineKind kind, std::vector<std::string> lanes);

  // Counters a subclass adds to each of its lanes' groups (report_stats).
  virtual void report_lane_extras(StatsSink& /*out*/) const {}
  // Called for every stage served, after its service (record): a subclass
  // counts what its energy depends on.
  virtual void count_served(const Stage& /*stage*/) {}
  // The energy one stage spends on this engine (power over time; the totals
  // come from report_energy).
  virtual double stage_energy_pj(const Stage& /*stage*/) const { return 0; }

  // A token arrived for its current stage. Default: queue it on its lane.
  virtual void accept(TileToken* token);
  // Which lane serves a stage (default 0).
  virtual unsigned lane_of(const Stage& s) const;
  // True when serve() waits inside the kernel (its lanes are then threads).
  virtual bool serves_in_thread() const { return false; }
  // The serial service of one stage in a thread lane: wait for its duration,
  // then finish_service().
  virtual void serve(TileToken& token, Stage& stage);
  // What a stage does once its service time has passed, before it is
  // recorded (data mode computes here). Default: nothing.
  virtual void finish_service(TileToken& /*token*/, Stage& /*stage*/) {}
  // Service time of a stage on this engine.
  virtual sc_core::sc_time service_time(const Stage& stage) const = 0;

  // Records a finished stage and moves the token on (or completes it).
  void record(const TileToken& token, const Stage& stage, unsigned lane, double start_ns,
              double end_ns);
  void advance(TileToken& token);
  // The engine stage_out reaches for `kind`.
  tlm::tlm_fw_transport_if<>& engine_for(EngineKind kind) {
    return next_engine_.of(stage_out, kind);
  }
  PeData* data() const { return data_; }
  // A data-mode compute failure: SC_REPORT_ERROR naming the engine and command.
  [[noreturn]] void compute_fault(const TileToken& token, const Stage& stage,
                                  const std::string& why) const;
  // Accounting for engines that take their tokens themselves and whose stages
  // overlap (DMA, IPCQ): busy time, stages in flight (queue_depth) and the
  // command of the latest one to enter (cmd_id; 0 when none is in flight).
  void lane_enter(unsigned lane, uint64_t cmd);
  void lane_leave(unsigned lane);

 private:
  // The lane's end-of-service timer calls back into its engine.
  // What a service reads and writes comes first, the counters with it: a
  // lane's end of service, long after its start, then misses on fewer lines.
  struct Lane final : Calendar::Timer {
    Lane(PeEngine& e, unsigned i) : engine(e), index(i) {}
    void on_time() override { engine.end_service(*this); }
    PeEngine& engine;
    unsigned index;
    bool busy = false;
    TileToken* serving = nullptr;   // the token in service (timer lanes)
    sc_core::sc_time started;       // ... since
    sc_core::sc_time work;          // ... its service time (a streamed stage's tiles' sum)
    sc_core::sc_time free_since;    // the end of the last service
    bool streaming = false;         // the stage in service is streamed (stream_end)
    sc_core::sc_time stream_start;  // ... and started, backdated, then
    int64_t power = 0;              // ... and its power-meter entry
    uint64_t current_cmd = 0;
    // Exact (integer ps) busy time; LaneStats::busy_ns is converted from it,
    // so same-instant leave/enter in either order give the same bits.
    sc_core::sc_time busy_time;
    LaneStats stats;
    RingQueue<TileToken*> queue;
    SettledPeak depth;  // queued + in service
    unsigned active = 0;
    sc_core::sc_time active_since;
    // Thread lanes: a token was queued. Made with the lane's worker, at its
    // first token: timer lanes, nearly all of them, never need one.
    std::unique_ptr<sc_core::sc_event> arrived;
    std::string process_name;  // what a thread lane is named: <engine>.lane_<i>
  };
  void b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void record(const TileToken& token, const Stage& stage, Lane& lane, double start_ns,
              double end_ns);
  void worker(unsigned lane);
  // Timer lanes: starts the front token when the lane is idle.
  void run_lane(Lane& l);
  // Takes the front token into service and sets the lane's timer for its end.
  void begin_service(Lane& l);
  // The token in service is done: finish, record, hand it on, start the next.
  void end_service(Lane& l);
  // When a streamed stage (Stage::stream_tiles) taken into service on `l`
  // ends; sets its backdated start and the token's stream profile.
  static sc_core::sc_time stream_end(Lane& l, TileToken& token, unsigned k);
  static void update_depth(Lane& l);

  EngineKind kind_;
  std::string pe_path_;
  OpLog* op_log_ = nullptr;
  PeData* data_ = nullptr;
  PowerMeter* meter_ = nullptr;
  std::vector<std::unique_ptr<Lane>> lanes_;
  EngineTargets next_engine_;  // stage_out's, for advance() and subclasses
  DueTimers due_;              // the lanes' ends of service (a zero-time one in this delta)
};

}  // namespace kb
