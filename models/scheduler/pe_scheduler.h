// PE_SCHEDULER: turns each CompositeCmd into a tile plan and feeds its
// tokens to the engines.
//
// Admission follows the strict-FIFO hazard rule (HazardTracker). An admitted
// composite runs in three phases: its prologue tokens, then its tile tokens,
// then its post-loop tokens, each phase starting once the previous one has
// completed (the tiles consume what the prologue produced). Tile tokens that
// stage data hold one of `staging_buffers` TCM slots from feed to completion,
// which bounds the tokens in flight. A plan error (two GEMMs, mismatched
// shapes, an operand outside the TCM, an unknown op kind) is SC_REPORT_ERROR
// naming this PE and the command.
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/calendar.h"
#include "models/common/instrumented.h"
#include "models/pe/engine_targets.h"
#include "models/scheduler/hazard_tracker.h"
#include "models/scheduler/tile_plan.h"

namespace kb {

struct CompositeRequest;

class PeScheduler : public sc_core::sc_module, public Instrumented {
 public:
  tlm_utils::simple_target_socket<PeScheduler> cmd_in;
  tlm_utils::multi_passthrough_initiator_socket<PeScheduler> stage_out;  // EngineKind order

  // `staging_base`: TCM address of the first staging slot.
  PeScheduler(const sc_core::sc_module_name& name, const TilingConfig& tiling,
              unsigned staging_buffers, uint64_t staging_base);

  // Whether the GEMM tiles it plans keep their operand views (TilePlanner):
  // the PE turns them on for the op log and data mode, which read them.
  void set_operand_views(bool on) { operand_views_ = on; }
  // Whether a GEMM that can stream is planned streamed (GemmPlan::kStream;
  // the PE turns it off in data mode, whose GEMM computes tile by tile).
  void set_stream_gemm(bool on) { stream_gemm_ = on; }

  uint64_t composites_done() const { return composites_done_; }
  uint64_t tokens_fed() const { return tokens_fed_; }
  const unsigned& in_flight_value() const { return in_flight_; }

  // Instrumented: no counters; tokens_in_flight.
  void report_stats(StatsSink& out, double now_ns) const override;
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;

 private:
  struct Entry {
    uint64_t ticket = 0;
    uint64_t cmd_id = 0;
    std::function<void()> on_done;
    std::unique_ptr<TilePlanner> plan;
    int phase = 0;  // 0 prologue, 1 tiles, 2 post, 3 done
    size_t fed = 0, completed = 0;
    bool admitted = false;
    // Tokens fed and not yet freed; a finished one is freed by the feeder,
    // never from inside its own callback. With has_next, the last one is
    // the phase's next token, taken from the plan and waiting for a slot.
    std::list<TileToken> live;
    bool has_next = false;
    std::vector<const TileToken*> finished;
  };
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  void feeder();
  // Feeds what it can of one entry's current phase (fed_any set when it fed
  // or moved anything); false when the entry is done or not yet admitted.
  bool feed_entry(Entry* e, bool& fed_any);
  static size_t phase_size(const Entry& e);
  // Moves the entry's finished tokens to spare_ (all of its tokens once it is done).
  void free_finished(Entry& e);
  static bool needs_slot(const TileToken& t);
  void assign_slot(TileToken& t, int slot);
  void on_token_done(Entry* e, TileToken& t);
  void enter_next_phase(Entry* e);

  TilingConfig tiling_;
  bool operand_views_ = true;
  bool stream_gemm_ = false;
  uint64_t staging_base_;
  std::vector<int> free_slots_;
  HazardTracker hazards_;
  std::list<std::unique_ptr<Entry>> entries_;  // arrival order
  // Freed tokens, list nodes and stage vectors kept: a token taken from the
  // plan reuses one, so feeding a tile allocates nothing once warm.
  std::list<TileToken> spare_;
  EngineTargets first_engine_;  // stage_out's
  // The feeder runs one delta after a kick (no process of its own).
  DeltaKick<PeScheduler, &PeScheduler::feeder> kick_{this};
  std::string feeder_name_;
  unsigned in_flight_ = 0;
  uint64_t composites_done_ = 0, tokens_fed_ = 0;
};

}  // namespace kb
