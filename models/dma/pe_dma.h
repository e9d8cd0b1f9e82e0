// PE_DMA: the PE's DMA engine with a read channel (into this PE's TCM) and a
// write channel (everything else, e.g. TCM -> HBM / remote / host).
//
// Each channel takes transfers in submission order; transfers submitted at
// the same instant start by (command id, submitting process, submission
// sequence), see channel_step. A transfer pays setup_ns, is
// split into bursts (at most burst_bytes, never crossing a row), and each
// burst is handed to the fabric as soon as the channel has an outstanding
// slot: the channel does not wait for a burst to land before issuing the next
// (up to max_outstanding in flight), so back-to-back transfers pipeline and
// HBM serialisation stays the pseudo-channel's job. A burst is a READ of the
// source followed by a WRITE of the destination through `port`. Transfers on
// one channel complete in the order they started.
//
// As a stage engine, DMA_READ / DMA_WRITE stages of a tile token are
// submitted to the channel as transfers (consecutive DMA stages of one token
// together) and the token moves on when they have all landed.
//
// A burst from memory to memory (HBM, TCM, cube SRAM, host memory; two of
// them or within one) takes no worker: it is carried with non-blocking
// transports (the read's response issues the write), and its end, when the
// write's response has come back and its return latency has passed, runs
// from the calendar. Same instants as a worker's blocking calls, without a
// thread (and its stack) per burst in flight. Workers carry the rest: a
// burst that reaches no memory, or that the fabric would refuse.
//
// With pe.dma.transactions: stream (timing mode), a descriptor between this
// PE's own memories (HBM, TCM) of three bursts or more moves as stream
// transactions instead (models/common/burst_run.h, docs/ARCHITECTURE.md
// §1.6): its first burst as usual; the rest's read, issued with it, whose
// response sends the write of the last bursts (one per source channel:
// set_stream_tail); and, when the first burst's read has come back (where
// the exact model's writes begin to arrive), one write of the bursts between.
// The targets price each transaction as its bursts; what differs from the
// exact model is how other traffic interleaves with them, and that they are
// not held to max_outstanding. The counters count the bursts it stands for.
//
// A burst that comes back with a TLM error is a simulation fault: SC_REPORT_ERROR
// naming this module, the command id, the address and why the map rejected it.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/address_map.h"
#include "models/common/burst_run.h"
#include "models/common/calendar.h"
#include "models/common/due_timers.h"
#include "models/common/idle_workers.h"
#include "models/common/ring_queue.h"
#include "models/common/settled_peak.h"
#include "models/dma/dma_config.h"
#include "models/dma/dma_transfer.h"
#include "models/pe/pe_engine.h"

namespace kb {

struct RequestOrder;

class PeDma : public PeEngine {
 public:
  enum class Channel { kRead = 0, kWrite = 1 };
  static const char* to_string(Channel c) { return c == Channel::kRead ? "read" : "write"; }

  tlm_utils::simple_initiator_socket<PeDma> port;  // to the PE crossbar

  PeDma(const sc_core::sc_module_name& name, const DmaConfig& cfg, const AddressMap& map,
        const Location& self);

  Channel channel_for(const DmaTransfer& t) const;

  // Queue a transfer; `on_done` runs in simulation context when it completes.
  // Callable from a process or between sc_start() calls.
  void submit(const DmaTransfer& t, DmaDoneCallback on_done);
  // Blocking form for an SC_THREAD: returns when the transfer completed.
  DmaResult transfer(const DmaTransfer& t);

  void set_data_mode(bool on) { data_mode_ = on; }
  // Stream transactions: how many bursts the source finishes together at the
  // end (its parallel channels: the PE's HBM pseudo-channels), written after
  // the rest's read as the exact model writes them (start_stream).
  void set_stream_tail(unsigned bursts) { stream_tail_ = bursts; }

  struct ChannelStats {
    uint64_t transfers = 0;
    uint64_t bursts = 0;
    uint64_t bytes = 0;
    sc_core::sc_time busy_time = sc_core::SC_ZERO_TIME;
    // Most bursts in flight at once, each counted over [issue, finish)
    // (SettledPeak). Filled in by stats().
    unsigned max_outstanding = 0;
  };
  ChannelStats stats(Channel c) const {
    ChannelStats s = channel(c).stats;
    s.max_outstanding = channel(c).outstanding.peak();
    return s;
  }
  const bool& busy_flag(Channel c) const { return channel(c).busy; }
  const unsigned& outstanding_value(Channel c) const { return channel(c).outstanding.traced(); }

  // Instrumented: per channel its ChannelStats, busy and outstanding; then the lanes.
  void report_stats(StatsSink& out, double now_ns) const override;
  // Per burst issued, and the static power (DmaConfig::energy).
  void report_energy(EnergySink& out) const override;
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;

 protected:
  void accept(TileToken* token) override;
  sc_core::sc_time service_time(const Stage&) const override { return sc_core::SC_ZERO_TIME; }

 private:
  struct Pending {
    DmaTransfer transfer;
    DmaDoneCallback on_done;  // a submit()'s; a token's stage has none (below)
    // A stage engine's DMA stage: the token, the stage and the last of its
    // run of DMA stages, and the lane it is accounted on (see stage_done).
    TileToken* token = nullptr;
    size_t stage = 0, last = 0;
    unsigned lane = 0;
    DmaResult result;
    uint64_t bursts_left = 0;
    bool all_issued = false;
    bool stream = false;          // sent as stream transactions (start_stream)
    uint64_t landed = 0;          // bytes landed so far
    uint64_t head_bytes = 0;      // a stream's first burst
    double first_landed_ns = -1;  // mark_bytes landed (a stream: its first burst)
    uint64_t seq = 0;             // submission sequence on its channel
    bool async = false;           // its bursts take no worker (see AsyncBurst)
    // The submitting process (its name orders same-instant submissions). A
    // handle, not a copy of the name: it keeps the process's name alive
    // without an allocation per transfer.
    sc_core::sc_process_handle submitter;
    // Set when the submitter acts for another process (ActingProcess, e.g. a
    // PE engine lane, a timer named like the thread it replaces): that name
    // orders the transfer instead.
    const char* acting_for = nullptr;
    std::string_view submitter_name() const {
      return acting_for ? std::string_view(acting_for) : std::string_view(submitter.name());
    }
  };
  struct Burst {
    Pending* owner;
    uint64_t src, dst, bytes;
    uint64_t order;       // request order key (models/common/request_order.h)
    uint64_t pieces = 1;  // the bursts it counts as (a stream transaction's)
  };
  struct ChannelState;
  struct AsyncBurst;
  // An async burst's payload: the responses find their burst through it.
  struct BurstPayload final : tlm::tlm_generic_payload {
    AsyncBurst* run = nullptr;
  };
  // A burst in flight with no worker: its payload, and where it stands. The
  // calendar runs on_time() at its end.
  struct AsyncBurst final : Calendar::Timer {
    PeDma* dma = nullptr;
    ChannelState* ch = nullptr;
    Burst burst{};
    BurstPayload trans;
    RequestOrder* order = nullptr;    // the payload's extension (it owns it)
    BurstRun* run_ext = nullptr;      // the payload's extension (it owns it)
    bool writing = false;             // the read has come back; the write is out
    bool failed = false;              // a transport was refused
    std::vector<unsigned char> data;  // data mode: the burst's bytes
    // What its read and its write carry: a plain burst's bytes (empty runs),
    // or a stream transaction's pieces; and the write's order key.
    BurstRun read_run, write_run;
    uint64_t read_len = 0, write_len = 0, write_key = 0;
    // A stream's middle write, sent when this burst's read has come back.
    AsyncBurst* then = nullptr;
    // Points the payload at its read or its write.
    void aim(bool is_read, unsigned char* bytes);
    void on_time() override { dma->end_async_burst(*this); }
  };
  struct ChannelState {
    // Its events are named after the channel: see ServiceQueue.
    explicit ChannelState(Channel c)
        : id(c),
          kick((std::string(to_string(c)) + "_kick").c_str()),
          issued_all((std::string(to_string(c)) + "_issued_all").c_str()),
          setup_done((std::string(to_string(c)) + "_setup_done").c_str()) {}
    Channel id;
    RingQueue<std::unique_ptr<Pending>> waiting;   // not started
    RingQueue<std::unique_ptr<Pending>> inflight;  // started, completion in order
    RingQueue<Burst> ready;                        // issued, waiting for a worker
    sc_core::sc_event kick;
    // Where the channel's method stands (channel_step): idle (asleep on
    // kick), in a transfer's setup (asleep on setup_done, or one delta), or
    // issuing a transfer's bursts (asleep on issued_all); picked_ns is when
    // the setup began.
    enum class Phase { kIdle, kSetup, kIssuing } phase = Phase::kIdle;
    double picked_ns = 0;
    // The transfer whose bursts are being issued, and the next burst's place
    // in it (row, offset in the row). The channel issues while slots are
    // free; then each worker or async burst end that frees a slot issues the
    // next burst, and the last one wakes the channel through issued_all.
    Pending* issuing = nullptr;
    uint32_t issue_rows = 0, issue_row = 0;
    uint64_t issue_row_bytes = 0, issue_off = 0;
    sc_core::sc_event issued_all;
    sc_core::sc_event setup_done;
    IdleWorkers sleeping;                  // workers waiting for a burst
    std::deque<AsyncBurst> async_bursts;   // every one made (stable addresses)
    std::vector<AsyncBurst*> spare_async;  // ... and those not in flight
    SettledPeak outstanding;               // bursts in flight
    unsigned workers = 0, idle_workers = 0;
    bool busy = false;
    bool started = false;  // the channel's method starts at its first transfer
    sc_core::sc_time busy_since;
    ChannelStats stats;
    uint64_t burst_seq = 0;   // issue sequence of this channel's bursts
    uint64_t submit_seq = 0;  // submission sequence of its transfers
  };

  ChannelState& channel(Channel c) { return channels_[static_cast<int>(c)]; }
  const ChannelState& channel(Channel c) const { return channels_[static_cast<int>(c)]; }
  // A Pending from the spare list (or a new one), stamped for channel `ch`.
  Pending* make_pending(ChannelState& ch, const DmaTransfer& t);
  // Queues `p` (taken from make_pending) on its channel.
  void enqueue(ChannelState& ch, std::unique_ptr<Pending> p);
  void stage_done(const Pending& p);
  // The channel: an SC_METHOD that starts its transfers one at a time.
  void channel_step(ChannelState* ch);
  // Picks the transfer to start once the setup time has passed and issues its
  // bursts; true when the channel must wait for issued_all.
  bool start_picked(ChannelState& ch);
  void worker_thread(ChannelState* ch);
  // Issues the current transfer's next burst into `ready`, if a slot is free;
  // false when there is none to issue.
  bool push_next_burst(ChannelState& ch) const;
  void start_worker_for_ready(ChannelState& ch);
  void run_burst(ChannelState& ch, const Burst& b, tlm::tlm_generic_payload& trans,
                 std::vector<unsigned char>& buffer);
  // The burst just issued into `ready`: an async one starts now; another is
  // left for a worker (woken or started when `wake_worker`).
  void dispatch_issued(ChannelState& ch, bool wake_worker);
  void start_async_burst(ChannelState& ch, const Burst& b);
  // An AsyncBurst from the spare list (or a new one), reset for `b`.
  AsyncBurst& take_async(ChannelState& ch, const Burst& b);
  // Sends its read, or (a stream's middle write) its write, `delay` from now.
  void send_read(AsyncBurst& run);
  void send_write(AsyncBurst& run, sc_core::sc_time delay);
  // Starts `p` as stream transactions (pe.dma.transactions: stream) when it
  // has enough bursts, its pieces being `rows` rows of `row_bytes`; false to
  // send it as bursts.
  bool start_stream(ChannelState& ch, Pending& p, uint32_t rows, uint64_t row_bytes);
  void end_async_burst(AsyncBurst& run);
  // A burst is done: its slot, the counters, the transfer's retirement, the
  // next burst. A worker (`by_worker`) carries a next burst that needs one itself.
  void burst_done(ChannelState& ch, const Burst& b, bool by_worker);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  // Between two memories, not both in the same one: no worker needed.
  bool goes_async(const DmaTransfer& t) const;
  void retire_in_order(ChannelState& ch);
  // DmaResult::first_ns of a finished transfer.
  static double first_landed(const Pending& p);
  void check_rows_stay_in_region(const Pending& p);
  [[noreturn]] void fault(const Pending& p, uint64_t addr, uint64_t len, const char* what);

  DmaConfig cfg_;
  const AddressMap& map_;
  Location self_;
  sc_core::sc_time setup_;
  bool data_mode_ = false;
  unsigned stream_tail_ = 1;
  uint64_t order_base_ = 0;
  // Finished transfers' Pendings, reused: a transfer allocates none.
  std::vector<std::unique_ptr<Pending>> spare_;
  // Async bursts' ends: the calendar's, or, with no delay left, this delta's
  // method (where a worker woken now would run).
  DueTimers ending_{*this, "async_bursts_end", "async_burst_ended"};
  // The data of async bursts in timing-only mode (nothing reads it).
  std::vector<unsigned char> scratch_;
  ChannelState channels_[2] = {ChannelState(Channel::kRead), ChannelState(Channel::kWrite)};
};

}  // namespace kb
