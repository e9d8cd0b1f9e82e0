// One HBM pseudo-channel at bank level (pe.hbm.model: banked): bank groups,
// banks with a row buffer each, a bounded request queue and an FR-FCFS
// scheduler that issues PRE, ACT, RD/WR and all-bank REF commands at the
// earliest time the JEDEC timing parameters allow (models/hbm/dram_timing.h).
//
// Address mapping of a pseudo-channel's local offset (the HBM controller has
// already taken out the pseudo-channel's interleave): consecutive columns go
// to consecutive bank groups, so a sequential stream alternates bank groups
// and runs at tCCD_S; then the column within the row, the bank, the row.
//   column index c = offset / column_bytes;  bank group = c mod G;
//   (c / G) = ((row * banks_per_group + bank) * columns_per_row + column)
// `lockstep` device pseudo-channels act as one (DramTimingConfig::lockstep):
// column and page sizes are that many times the device's.
//
// Scheduling. A request is cut at stripe boundaries (one row in every bank
// group); each piece is a queue entry. At each decision instant the scheduler
// commits, oldest first among equals:
//   1. a row hit (every bank the entry needs is open at its row): its column
//      commands, interleaved over its bank groups;
//   2. else the oldest entry whose first row command can issue now: all its
//      PREs and ACTs (an entry so prepared keeps its banks: no other entry
//      precharges them before its columns have issued).
// A bank is not precharged while a queued entry is a whole row hit on it.
// Commands are committed at the instant their first one issues, each at
// the earliest time every constraint allows:
//   PRE   >= tRAS after the bank's ACT, tRTP after its last RD, tWR after its
//         last write data
//   ACT   >= tRP after the bank's PRE, tRRD_S (tRRD_L in the same bank group)
//         after the last ACT, tFAW after the fourth-last ACT, tRFC after REF
//   RD/WR >= tRCD after ACT, tCCD_S (tCCD_L same group) after the last column,
//         a RD tWTR after the last write data, data bus free at +tCL / +tCWL
// Each column holds the data bus for tCCD_S. A read completes when its last
// data has arrived (RD + tCL + tCCD_S), a write when its last data is in
// (WR + tCWL + tCCD_S). With the closed-page policy each bank precharges as
// soon as its entry's last column allows. Every tREFI an all-bank REF closes
// every row and blocks ACTs for tRFC; it waits for the committed commands,
// and during idle time refreshes are accounted when the next request arrives.
// Decisions run one delta after a wake-up, so same-instant arrivals are all in
// the queue and are taken by (arrival, order key, push) whatever the kernel's
// process order.
#pragma once

#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

#include "models/common/completion.h"
#include "models/common/instrumented.h"
#include "models/common/ring_queue.h"
#include "models/common/settled_peak.h"
#include "models/hbm/dram_timing.h"
#include "models/hbm/pseudo_channel.h"

namespace kb {

class PowerMeter;

class BankedChannel : public sc_core::sc_module, public Instrumented, public PseudoChannel {
 public:
  // `capacity` > 0 bounds the queue; an entry that finds it full waits at its
  // input (not counted in depth) and is admitted oldest first as slots free.
  BankedChannel(const sc_core::sc_module_name& name, const DramTimingConfig& timing,
                unsigned lockstep, unsigned capacity);

  // A request of `bytes` at the pseudo-channel's local `offset`; `done->done()`
  // is called once it has completed. `pj`: drawn on the power meter while the
  // request's data moves.
  void push(uint64_t offset, uint64_t bytes, bool write, Completion* done, uint64_t order = 0,
            double pj = 0);
  // PseudoChannel: push() at the request's arrival (the controller's queue
  // is this channel's own); a stream's chunks one by one (each is scheduled).
  void serve([[maybe_unused]] const sc_core::sc_time& delay, uint64_t offset, uint64_t bytes,
             bool write, Completion* served, uint64_t order, double pj) override {
    sc_assert(delay == sc_core::SC_ZERO_TIME);
    push(offset, bytes, write, served, order, pj);
  }
  bool takes_at_arrival() const override { return true; }
  bool sums_runs() const override { return false; }
  void set_power_meter(PowerMeter* meter) override { meter_ = meter; }

  // Where `offset` lands: bank group, bank within it, row, column in the row.
  struct Location {
    unsigned group = 0, bank = 0;
    uint64_t row = 0, column = 0;
  };
  Location locate(uint64_t offset) const;
  uint64_t column_bytes() const { return column_bytes_; }
  // Peak data rate: one column per tCCD_S, GB/s.
  double peak_gbps() const;

  struct Stats {
    uint64_t requests = 0;   // queue entries completed
    uint64_t bytes = 0;      // bytes they carried
    uint64_t row_hits = 0;   // entries whose every bank was open at their row
    uint64_t activates = 0;  // ACT commands
    uint64_t precharges = 0;
    uint64_t refreshes = 0;
    uint64_t columns = 0;  // RD and WR commands
    sc_core::sc_time data_busy = sc_core::SC_ZERO_TIME;
    unsigned max_depth = 0;
  };
  Stats stats() const {
    Stats s = stats_;
    s.max_depth = depth_.peak();
    return s;
  }

  void report_stats(StatsSink& out, double now_ns) const override;
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;

 private:
  struct Target {       // one bank an entry reads or writes
    unsigned bank = 0;  // group * banks_per_group + bank in group
    unsigned group = 0;
    uint64_t row = 0;
    unsigned columns = 0;
  };
  struct Entry {
    sc_core::sc_time arrival;
    uint64_t order = 0, seq = 0;
    bool write = false;
    bool prepared = false;  // its row commands are committed
    uint64_t bytes = 0;
    double pj = 0;
    Completion* done = nullptr;
    std::vector<Target> targets;
  };
  struct InFlight {
    sc_core::sc_time end;
    uint64_t seq = 0;
    uint64_t bytes = 0;
    Completion* done = nullptr;
    int64_t power_token = 0;
  };
  struct Bank {
    bool open = false;
    uint64_t row = 0;
    sc_core::sc_time act_ok, col_ok, pre_ok;  // earliest ACT, RD/WR, PRE
  };

  void step();
  void decide(const sc_core::sc_time& now);
  void refresh_due(const sc_core::sc_time& now);
  void finish_done(const sc_core::sc_time& now);
  bool is_hit(const Entry& e) const;
  bool protected_row(unsigned bank) const;
  // Earliest time the entry's first row command may issue (>= now); false
  // when a bank it must precharge is protected.
  bool first_row_command(const Entry& e, const sc_core::sc_time& now, sc_core::sc_time* t) const;
  sc_core::sc_time act_time(const Bank& b, unsigned group, const sc_core::sc_time& from) const;
  sc_core::sc_time column_time(const Target& x, bool write, const sc_core::sc_time& from) const;
  void prepare(Entry& e, const sc_core::sc_time& now);
  void issue_columns(Entry& e, const sc_core::sc_time& now);
  void precharge(Bank& b, const sc_core::sc_time& t);
  void admit_stalled();

  DramTimingConfig t_;
  uint64_t column_bytes_;
  uint64_t columns_per_row_;
  unsigned capacity_;
  sc_core::sc_time tRCD_, tRP_, tRAS_, tCL_, tCWL_, tRRD_S_, tRRD_L_, tFAW_, tCCD_S_, tCCD_L_, tWR_,
      tWTR_, tRTP_, tRFC_, tREFI_;

  std::vector<Bank> banks_;
  std::vector<sc_core::sc_time> last_col_group_, last_act_group_;
  bool any_col_ = false, any_act_ = false;
  sc_core::sc_time last_col_, last_act_;
  RingQueue<sc_core::sc_time> act_window_;  // the last four ACTs
  sc_core::sc_time bus_free_;               // data bus free from
  sc_core::sc_time write_data_end_;         // end of the last write's data
  sc_core::sc_time committed_until_;        // latest committed command
  sc_core::sc_time refresh_block_;          // no ACT before (REF + tRFC)
  sc_core::sc_time next_refresh_;

  RingQueue<Entry> queue_;
  RingQueue<Entry> stalled_;
  std::vector<InFlight> in_flight_;
  uint64_t next_seq_ = 0;
  bool settling_ = false;
  sc_core::sc_event kick_{"kick"};  // named: see ServiceQueue
  SettledPeak depth_;
  Stats stats_;
  PowerMeter* meter_ = nullptr;
};

}  // namespace kb
