#include "models/dma/pe_dma.h"

#include "models/common/acting_process.h"

#include "models/common/energy.h"
#include "models/common/fault.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <string_view>

#include "models/common/annotated_delay.h"
#include "models/common/calendar.h"
#include "models/common/due_timers.h"
#include "models/common/errors.h"
#include "models/common/hop_stack.h"
#include "models/common/request_order.h"
#include "models/common/sim_time.h"
#include "models/common/stack_color.h"
#include "models/common/thread_budget.h"

namespace kb {

namespace {
constexpr const char* kDmaMsgType = "/kernbench/pe_dma";

void set_burst(tlm::tlm_generic_payload& trans, bool is_read, uint64_t addr, unsigned char* data,
               unsigned len) {
  trans.set_command(is_read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
  trans.set_address(addr);
  trans.set_data_ptr(data);
  trans.set_data_length(len);
  trans.set_streaming_width(len);
  trans.set_byte_enable_ptr(nullptr);
  trans.set_byte_enable_length(0);
  trans.set_dmi_allowed(false);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}
}  // namespace

PeDma::PeDma(const sc_core::sc_module_name& name, const DmaConfig& cfg, const AddressMap& map,
             const Location& self)
    : PeEngine(name, EngineKind::kDma, {"dma.read", "dma.write"}),
      port("port"),
      cfg_(cfg),
      map_(map),
      self_(self),
      setup_(ns_to_time(cfg.setup_ns)),
      // Bursts are ordered by (PE, channel, the channel's issue sequence): PE
      // index in the high bits, the write channel above the read channel (bit
      // 38; bit 39 is PE_IPCQ's control messages). One sequence per channel,
      // because each channel issues from its own thread: a shared counter gave
      // same-instant bursts of the two channels keys in kernel run order.
      order_base_(pe_order_base(self.sip, self.cube, self.pe)) {
  port.register_nb_transport_bw(this, &PeDma::nb_transport_bw);
}

bool PeDma::goes_async(const DmaTransfer& t) const {
  const auto src = decode_address(t.src), dst = decode_address(t.dst);
  auto memory = [](const std::optional<Location>& l) {
    return l && (l->space == Space::kHbm || l->space == Space::kTcm || l->space == Space::kSram ||
                 l->space == Space::kHost);
  };
  if (!memory(src) || !memory(dst)) return false;
  // A copy within one memory is async too: its write, issued by the read's
  // response from inside the queue's end of service, queues behind what that
  // queue serves next exactly as a worker's write would. A burst the fabric
  // would refuse (past the end of its memory) is left to a worker, which
  // raises the fault from its own thread, as it always has.
  const uint32_t last = t.rows - 1;
  return map_.resolve(t.src, t.row_bytes, nullptr) &&
         map_.resolve(t.dst, t.dst_row_span(), nullptr) &&
         map_.resolve(t.src_row(last), t.row_bytes, nullptr) &&
         map_.resolve(t.dst_row(last), t.dst_row_span(), nullptr);
}

PeDma::Channel PeDma::channel_for(const DmaTransfer& t) const {
  auto dst = decode_address(t.dst);
  const bool into_own_tcm = dst && dst->space == Space::kTcm && dst->sip == self_.sip &&
                            dst->cube == self_.cube && dst->pe == self_.pe;
  return into_own_tcm ? Channel::kRead : Channel::kWrite;
}

PeDma::Pending* PeDma::make_pending(ChannelState& ch, const DmaTransfer& t) {
  Pending* p;
  if (spare_.empty()) {
    p = new Pending;
  } else {
    p = spare_.back().release();
    spare_.pop_back();
  }
  p->transfer = t;
  p->result = DmaResult{};
  p->result.submitted_ns = to_ns(sim_now());
  p->bursts_left = 0;
  p->all_issued = false;
  p->stream = false;
  p->landed = 0;
  p->head_bytes = 0;
  p->first_landed_ns = -1;
  p->seq = ch.submit_seq++;
  p->submitter = sc_core::sc_get_current_process_handle();
  p->acting_for = ActingProcess::current();
  return p;
}

void PeDma::submit(const DmaTransfer& t, DmaDoneCallback on_done) {
  ChannelState& ch = channel(channel_for(t));
  std::unique_ptr<Pending> p(make_pending(ch, t));
  p->on_done = std::move(on_done);
  enqueue(ch, std::move(p));
}

void PeDma::enqueue(ChannelState& ch, std::unique_ptr<Pending> p) {
  if (!ch.busy) {
    ch.busy = true;
    ch.busy_since = sim_now();
  }
  if (!ch.started) {  // its first run: the kick below
    ch.started = true;
    ChannelState* c = &ch;
    start_method_on_first_use(*this, ch.id == Channel::kRead ? "read_channel" : "write_channel",
                              ch.kick, [this, c] { channel_step(c); });
  }
  ch.waiting.push_back(std::move(p));
  ch.kick.notify(sc_core::SC_ZERO_TIME);
}

void PeDma::accept(TileToken* token) {
  const StageKind kind = token->current().kind;
  size_t last = token->next;
  while (last + 1 < token->stages.size() && token->stages[last + 1].kind == kind) ++last;
  token->dma_left = last - token->next + 1;
  const size_t first = token->next;
  for (size_t i = first; i <= last; ++i) {
    Stage& st = token->stages[i];
    st.transfer.cmd_id = token->cmd_id;
    const Channel c = channel_for(st.transfer);
    const auto lane = static_cast<unsigned>(c);
    lane_enter(lane, token->cmd_id);
    ChannelState& ch = channel(c);
    std::unique_ptr<Pending> p(make_pending(ch, st.transfer));
    p->token = token;
    p->stage = i;
    p->last = last;
    p->lane = lane;
    enqueue(ch, std::move(p));
  }
}

// A token's DMA stage has landed: its lane and op-log entry; after the last
// of the run, the token moves on.
void PeDma::stage_done(const Pending& p) {
  TileToken& token = *p.token;
  lane_leave(p.lane);
  if (token.stages[p.stage].stream_tiles > 1) {  // a streamed GEMM's tiles (PeEngine)
    token.stream_first_ns = p.result.first_ns;
    token.stream_last_ns = p.result.finished_ns;
    token.stream_count = token.stages[p.stage].stream_tiles;
  }
  record(token, token.stages[p.stage], p.lane, p.result.started_ns, p.result.finished_ns);
  if (--token.dma_left == 0) {
    token.next = p.last;
    advance(token);
  }
}

DmaResult PeDma::transfer(const DmaTransfer& t) {
  bool done = false;
  DmaResult out;
  sc_core::sc_event ev;
  submit(t, [&](const DmaTransfer&, const DmaResult& r) {
    out = r;
    done = true;
    ev.notify();
  });
  while (!done) sc_core::wait(ev);
  return out;
}

// The channel's method: what a thread looping "wait for a transfer, wait the
// setup, start it, wait until its bursts are issued" would do, at the same
// instants and in the same deltas, each wait a next_trigger.
void PeDma::channel_step(ChannelState* ch) {
  for (;;) {
    switch (ch->phase) {
      case ChannelState::Phase::kIdle:
        if (ch->waiting.empty()) return;  // asleep on kick (static)
        ch->picked_ns = to_ns(sim_now());
        ch->phase = ChannelState::Phase::kSetup;
        if (setup_ == sc_core::SC_ZERO_TIME) {
          next_trigger(sc_core::SC_ZERO_TIME);  // one delta
        } else {
          Calendar::get().notify_in(ch->setup_done, setup_);
          next_trigger(ch->setup_done);
        }
        return;
      case ChannelState::Phase::kSetup:
        if (start_picked(*ch)) {
          ch->phase = ChannelState::Phase::kIssuing;
          next_trigger(ch->issued_all);
          return;
        }
        ch->phase = ChannelState::Phase::kIdle;
        break;
      case ChannelState::Phase::kIssuing:  // issued_all: the last burst is out
        ch->phase = ChannelState::Phase::kIdle;
        break;
    }
  }
}

bool PeDma::start_picked(ChannelState& ch) {
  // The channel starts the transfer with the least (submit time, command
  // id, submitting process, submission sequence) among those submitted by
  // the start of its setup: same-instant submissions of different commands
  // start in command order, those of one command from different processes
  // (an IPCQ command's send and receive loops) in process-name order, one
  // process's in program order. The choice is made after the setup time (the
  // descriptor fetch), by when every submission of this instant is in,
  // whichever delta or process order the kernel ran them in. With setup_ns = 0
  // the channel waits one delta instead, which catches submissions made in the
  // same delta but not those of later deltas of the instant. The process name
  // is the kernel's, not the model's: when a stage engine's DMA worker
  // advances a token, which worker it is can itself follow kernel order. A
  // token a TCM, GEMM or MATH lane hands on is submitted under the lane's name
  // (`<engine>.lane_<i>`, ActingProcess), though the lane is a timer.
  // (Compared field by field: the names only when all before them tie.)
  auto before = [](const Pending& a, const Pending& b) {
    if (a.result.submitted_ns != b.result.submitted_ns)
      return a.result.submitted_ns < b.result.submitted_ns;
    if (a.transfer.cmd_id != b.transfer.cmd_id) return a.transfer.cmd_id < b.transfer.cmd_id;
    const std::string_view na = a.submitter_name(), nb = b.submitter_name();
    if (na != nb) return na < nb;
    return a.seq < b.seq;
  };
  auto next = ch.waiting.begin();
  for (auto it = std::next(ch.waiting.begin()); it != ch.waiting.end(); ++it)
    if ((*it)->result.submitted_ns <= ch.picked_ns && before(**it, **next)) next = it;
  std::unique_ptr<Pending> owned = std::move(*next);
  ch.waiting.erase(next);
  Pending* p = owned.get();
  ch.inflight.push_back(std::move(owned));
  p->result.started_ns = to_ns(sim_now());
  const DmaTransfer& t = p->transfer;
  if (t.total_bytes() == 0) {
    p->all_issued = true;
    retire_in_order(ch);
    return false;
  }
  check_rows_stay_in_region(*p);
  p->async = goes_async(t);
  const bool runs_together = t.coalescible();
  if (cfg_.transactions == DmaTransactions::kStream && p->async && !data_mode_ &&
      start_stream(ch, *p, runs_together ? 1 : t.rows,
                   runs_together ? t.total_bytes() : t.row_bytes))
    return false;
  ch.issuing = p;
  ch.issue_rows = runs_together ? 1 : t.rows;
  ch.issue_row_bytes = runs_together ? t.total_bytes() : t.row_bytes;
  ch.issue_row = 0;
  ch.issue_off = 0;
  while (push_next_burst(ch)) dispatch_issued(ch, true);
  // The workers and async bursts' ends issue the rest, one per slot they free.
  return ch.issuing != nullptr;
}

bool PeDma::push_next_burst(ChannelState& ch) const {
  Pending* p = ch.issuing;
  if (!p || ch.outstanding.value() >= cfg_.max_outstanding) return false;
  const DmaTransfer& t = p->transfer;
  uint64_t n = std::min<uint64_t>(cfg_.burst_bytes, ch.issue_row_bytes - ch.issue_off);
  const uint64_t dst = t.dst_at(ch.issue_row, ch.issue_off);
  if (t.dst_ring) n = std::min(n, t.dst + t.dst_ring - dst);  // not across the ring's end
  ++p->bursts_left;
  ch.outstanding.set(ch.outstanding.value() + 1);
  ch.ready.push_back({p, t.src_row(ch.issue_row) + ch.issue_off, dst, n,
                      order_base_ | (uint64_t{ch.id == Channel::kWrite} << order_bits::kDmaWrite) |
                          (ch.burst_seq++ & order_bits::kDmaSeqMask)});
  ch.issue_off += n;
  if (ch.issue_off >= ch.issue_row_bytes) {
    ch.issue_off = 0;
    if (++ch.issue_row == ch.issue_rows) {
      p->all_issued = true;
      ++ch.stats.transfers;
      ch.issuing = nullptr;
    }
  }
  return true;
}

// A burst just put in `ready` by the channel: an idle worker takes it,
// or a new one when every worker is busy (at most max_outstanding).
void PeDma::start_worker_for_ready(ChannelState& ch) {
  if (ch.ready.size() > ch.idle_workers && ch.workers < cfg_.max_outstanding) {
    reserve_thread_stack(name());
    ++ch.workers;
    ++ch.idle_workers;
    sc_core::sc_spawn_options opts;
    color_stack(opts);
    ChannelState* c = &ch;
    sc_core::sc_spawn([this, c] { worker_thread(c); }, nullptr, &opts);
  }
  ch.sleeping.wake_one();
}

void PeDma::dispatch_issued(ChannelState& ch, bool wake_worker) {
  if (ch.ready.back().owner->async) {
    const Burst b = ch.ready.back();
    ch.ready.pop_back();
    start_async_burst(ch, b);
  } else if (wake_worker) {
    start_worker_for_ready(ch);
  }
}

void PeDma::worker_thread(ChannelState* ch) {
  tlm::tlm_generic_payload trans;
  auto* order = new RequestOrder;  // owned by the payload from here on
  trans.set_extension(order);
  std::vector<unsigned char> buffer(cfg_.burst_bytes);
  sc_core::sc_event& mine = ch->sleeping.new_worker_event();
  for (;;) {
    while (ch->ready.empty()) ch->sleeping.wait_for_work(mine);
    const Burst b = ch->ready.front();
    ch->ready.pop_front();
    order->key = b.order;
    --ch->idle_workers;
    run_burst(*ch, b, trans, buffer);
    ++ch->idle_workers;
    burst_done(*ch, b, true);
  }
}

void PeDma::burst_done(ChannelState& ch, const Burst& b, bool by_worker) {
  ch.outstanding.set(ch.outstanding.value() - 1);
  ch.stats.bursts += b.pieces;
  ch.stats.bytes += b.bytes;
  Pending& p = *b.owner;
  p.landed += b.bytes;
  if (p.transfer.mark_bytes && p.first_landed_ns < 0 &&
      (p.stream ? b.pieces == 1 : p.landed >= p.transfer.mark_bytes))
    p.first_landed_ns = to_ns(sim_now());
  if (--b.owner->bursts_left == 0) retire_in_order(ch);
  // The freed slot's next burst: a worker carries it itself (it loops to take
  // it), so no other worker is woken; the channel only hears of the last.
  if (push_next_burst(ch)) {
    dispatch_issued(ch, !by_worker);
    if (!ch.issuing) ch.issued_all.notify();
  }
}

void PeDma::run_burst(ChannelState&, const Burst& b, tlm::tlm_generic_payload& trans,
                      std::vector<unsigned char>& buffer) {
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const auto len = static_cast<unsigned int>(b.bytes);
  for (const bool is_read : {true, false}) {
    const uint64_t addr = is_read ? b.src : b.dst;
    set_burst(trans, is_read, addr, buffer.data(), len);
    port->b_transport(trans, delay);
    if (trans.is_response_error()) {
      sync_delay(delay);  // the fault happens when the error response arrives
      fault(*b.owner, addr, len, is_read ? "read" : "write");
    }
  }
  sync_delay(delay);  // the write's return path, annotated by the fabric
}

// An async burst: what run_burst does, each step where its blocking call
// would have returned. The read goes out now; its response (nb_transport_bw)
// sends the write; the write's response ends the burst when its return
// latency has passed, where a worker's last sync_delay would have ended.
PeDma::AsyncBurst& PeDma::take_async(ChannelState& ch, const Burst& b) {
  AsyncBurst* run;
  if (ch.spare_async.empty()) {
    run = &ch.async_bursts.emplace_back();
    run->dma = this;
    run->ch = &ch;
    run->trans.run = run;
    run->order = new RequestOrder;
    run->trans.set_extension(run->order);  // owned by the payload
    run->trans.set_extension(new HopStack);
    run->run_ext = new BurstRun;
    run->trans.set_extension(run->run_ext);
  } else {
    run = ch.spare_async.back();
    ch.spare_async.pop_back();
  }
  run->burst = b;
  run->writing = false;
  run->failed = false;
  run->read_run.first = run->read_run.end = 0;
  run->write_run.first = run->write_run.end = 0;
  run->read_len = run->write_len = b.bytes;
  run->write_key = b.order;
  run->then = nullptr;
  return *run;
}

void PeDma::AsyncBurst::aim(bool is_read, unsigned char* bytes) {
  const BurstRun& r = is_read ? read_run : write_run;
  *run_ext = r;
  // A run is addressed at its lowest piece (models/common/burst_run.h).
  const uint64_t addr = r.end > r.first ? r.lowest() : is_read ? burst.src : burst.dst;
  set_burst(trans, is_read, addr, bytes, static_cast<unsigned int>(is_read ? read_len : write_len));
}

void PeDma::start_async_burst(ChannelState& ch, const Burst& b) {
  send_read(take_async(ch, b));
}

void PeDma::send_read(AsyncBurst& run) {
  run.order->key = run.burst.order;
  unsigned char* data;
  if (data_mode_) {
    run.data.resize(cfg_.burst_bytes);
    data = run.data.data();
  } else {
    // Timing mode: nothing reads or writes the bytes (a stream transaction's
    // length may exceed this buffer's; no target touches it).
    scratch_.resize(cfg_.burst_bytes);
    data = scratch_.data();
  }
  run.aim(true, data);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  if (port->nb_transport_fw(run.trans, phase, delay) == tlm::TLM_COMPLETED) {  // refused
    run.failed = true;
    ending_.call_in(run, delay);
  }
}

void PeDma::send_write(AsyncBurst& run, sc_core::sc_time delay) {
  run.writing = true;
  run.order->key = run.write_key;
  scratch_.resize(cfg_.burst_bytes);
  run.aim(false, scratch_.data());
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  if (port->nb_transport_fw(run.trans, phase, delay) == tlm::TLM_COMPLETED) {  // refused
    run.failed = true;
    ending_.call_in(run, delay);
  }
}

// The stream transactions of a descriptor of n >= 3 pieces (its bursts):
// piece 0 as a plain burst; pieces 1..n-1 read as one transaction whose
// response sends the last `tail` pieces' write; the pieces between written
// as one, sent when piece 0's read has come back. The tail is what the
// source's channels finish last, one piece each (set_stream_tail): the
// exact model writes those after the last reads. Each transaction takes the
// order key of its first piece, and the channel's sequence moves on by n, as
// the bursts' would.
bool PeDma::start_stream(ChannelState& ch, Pending& p, uint32_t rows, uint64_t row_bytes) {
  constexpr uint64_t kMinPieces = 3;
  const DmaTransfer& t = p.transfer;
  BurstRun src, dst;
  src.base = t.src;
  dst.base = t.dst;
  src.row_bytes = dst.row_bytes = row_bytes;
  src.stride = t.src_stride ? t.src_stride : t.row_bytes;
  dst.stride = t.dst_step();
  src.piece_bytes = dst.piece_bytes = cfg_.burst_bytes;
  dst.ring = t.dst_ring;
  const uint64_t n = uint64_t{rows} * src.pieces_per_row();
  // A ring whose end would cut a burst goes as bursts (push_next_burst cuts them there).
  if (t.dst_ring && (t.dst_ring % cfg_.burst_bytes || (t.rows > 1 && t.dst_step() % t.dst_ring)))
    return false;
  if (n < kMinPieces || ch.outstanding.value() + 3 > cfg_.max_outstanding) return false;
  // Only between this PE's own memories: a link would carry a transaction
  // store-and-forward, where the bursts pipeline across the hops.
  auto own = [this](uint64_t addr) {
    const auto l = decode_address(addr);
    return l && l->sip == self_.sip && l->cube == self_.cube && l->pe == self_.pe;
  };
  if (!own(t.src) || !own(t.dst)) return false;
  const uint64_t seq = ch.burst_seq;
  ch.burst_seq += n;
  auto key = [&](uint64_t i) {
    return order_base_ | (uint64_t{ch.id == Channel::kWrite} << order_bits::kDmaWrite) |
           ((seq + i) & order_bits::kDmaSeqMask);
  };
  const uint64_t first_bytes = src.piece_size(0);
  p.head_bytes = first_bytes;
  AsyncBurst& head =
      take_async(ch, {&p, src.piece_address(0), dst.piece_address(0), first_bytes, key(0), 1});
  const uint64_t tail = std::clamp<uint64_t>(stream_tail_, 1, n - 2);
  AsyncBurst& rest = take_async(ch, {&p, src.piece_address(1), dst.piece_address(n - tail),
                                     t.total_bytes() - first_bytes, key(1), n - 1});
  rest.read_run = src;
  rest.read_run.first = 1;
  rest.read_run.end = n;
  rest.read_len = t.total_bytes() - first_bytes;
  rest.write_run = dst;
  rest.write_run.first = n - tail;
  rest.write_run.end = n;
  rest.write_len = rest.write_run.bytes();
  rest.write_key = key(n - tail);
  AsyncBurst& middle =
      take_async(ch, {&p, src.piece_address(1), dst.piece_address(1), 0, key(1), 0});
  middle.write_run = dst;
  middle.write_run.first = 1;
  middle.write_run.end = n - tail;
  middle.write_len = middle.write_run.bytes();
  head.then = &middle;
  p.bursts_left = 3;
  p.all_issued = true;
  p.stream = true;
  ++ch.stats.transfers;
  ch.outstanding.set(ch.outstanding.value() + 3);
  send_read(head);
  send_read(rest);
  return true;
}

tlm::tlm_sync_enum PeDma::nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                          sc_core::sc_time& delay) {
  // Only async bursts' payloads go out non-blocking from `port`.
  AsyncBurst& run = *static_cast<BurstPayload&>(trans).run;
  if (phase == tlm::BEGIN_RESP && !run.writing && !trans.is_response_error()) {
    run.writing = true;
    run.order->key = run.write_key;
    run.aim(false, trans.get_data_ptr());
    const sc_core::sc_time at = delay;
    tlm::tlm_phase req = tlm::BEGIN_REQ;
    if (port->nb_transport_fw(trans, req, delay) != tlm::TLM_COMPLETED) {
      if (run.then) send_write(*run.then, at);
      return tlm::TLM_COMPLETED;
    }
  }
  run.failed = trans.is_response_error();
  ending_.call_in(run, delay);
  return tlm::TLM_COMPLETED;
}

void PeDma::end_async_burst(AsyncBurst& run) {
  const Burst b = run.burst;
  if (run.failed)
    fault(*b.owner, run.writing ? b.dst : b.src, b.bytes, run.writing ? "write" : "read");
  run.ch->spare_async.push_back(&run);
  burst_done(*run.ch, b, false);
}

double PeDma::first_landed(const Pending& p) {
  const double end = p.result.finished_ns;
  if (!p.stream) return p.first_landed_ns < 0 ? end : p.first_landed_ns;
  // A stream: its first burst landed at first_landed_ns, the rest by the end,
  // at the rate the rest came in.
  const DmaTransfer& t = p.transfer;
  const auto first_burst = static_cast<double>(p.head_bytes);
  const double rest = static_cast<double>(t.total_bytes()) - first_burst;
  const double share =
      rest > 0 ? std::clamp((static_cast<double>(t.mark_bytes) - first_burst) / rest, 0.0, 1.0)
               : 1.0;
  return p.first_landed_ns + share * (end - p.first_landed_ns);
}

void PeDma::retire_in_order(ChannelState& ch) {
  while (!ch.inflight.empty()) {
    Pending& head = *ch.inflight.front();
    if (!head.all_issued || head.bursts_left != 0) break;
    head.result.finished_ns = to_ns(sim_now());
    if (head.transfer.mark_bytes) head.result.first_ns = first_landed(head);
    std::unique_ptr<Pending> done = std::move(ch.inflight.front());
    ch.inflight.pop_front();
    if (ch.inflight.empty() && ch.waiting.empty() && ch.busy) {
      ch.busy = false;
      ch.stats.busy_time += sim_now() - ch.busy_since;
    }
    if (done->token)
      stage_done(*done);
    else if (done->on_done)
      done->on_done(done->transfer, done->result);
    done->on_done = nullptr;
    done->token = nullptr;
    done->submitter = sc_core::sc_process_handle();
    spare_.push_back(std::move(done));
  }
}

// A descriptor addresses one memory region per side: a stride that carries
// the last row out of the first row's region (its offset overflowing into
// the PE, cube or SIP field: dst_stride=1TiB) would silently write another
// PE's memory. Such a transfer is a fault, before any burst.
void PeDma::check_rows_stay_in_region(const Pending& p) {
  const DmaTransfer& t = p.transfer;
  for (const bool src : {true, false}) {
    const uint64_t first = src ? t.src : t.dst;
    const uint64_t stride = src ? (t.src_stride ? t.src_stride : t.row_bytes) : t.dst_step();
    uint64_t span = 0, last = 0;
    bool wraps = __builtin_mul_overflow(stride, uint64_t{t.rows - 1}, &span) ||
                 __builtin_add_overflow(span, t.row_bytes - 1, &span);
    if (!src && t.dst_ring && (wraps || span >= t.dst_ring)) {  // a ring reaches its own bytes
      wraps = false;
      span = t.dst_ring - 1;
    }
    wraps = wraps || __builtin_add_overflow(first, span, &last);
    const auto a = decode_address(first), b = wraps ? std::nullopt : decode_address(last);
    if (a && b && a->space == b->space && a->sip == b->sip && a->cube == b->cube && a->pe == b->pe)
      continue;
    if (!a) continue;  // the first burst's own fault names the bad address
    std::ostringstream msg;
    msg << name() << ": DMA command #" << t.cmd_id << " (" << format_address(t.src) << " -> "
        << format_address(t.dst) << ", " << t.rows << " rows of " << t.row_bytes << " bytes): the "
        << (src ? "source" : "destination") << " stride " << stride << " carries row " << t.rows - 1
        << " out of the first row's memory region"
        << (wraps ? " (the address overflows 64 bits)" : " to " + format_address(last));
    raise_fault(kDmaMsgType, msg.str());
  }
}

void PeDma::fault(const Pending& p, uint64_t addr, uint64_t len, const char* what) {
  std::string why;
  if (map_.resolve(addr, len, &why))
    why = "address " + format_address(addr) + " was refused by its target";
  std::ostringstream msg;
  msg << name() << ": DMA command #" << p.transfer.cmd_id << " (" << format_address(p.transfer.src)
      << " -> " << format_address(p.transfer.dst) << ", " << p.transfer.total_bytes()
      << " bytes): burst " << what << " failed: " << why;
  raise_fault(kDmaMsgType, msg.str());
}

void PeDma::report_stats(StatsSink& out, double now_ns) const {
  for (auto c : {Channel::kRead, Channel::kWrite}) {
    const ChannelStats s = stats(c);
    if (s.transfers == 0 && !out.describing()) continue;
    out.group(std::string(name()) + "." + to_string(c) + "_channel");
    out.count("transfers", s.transfers, "", "transfers (DMA stages) served");
    out.count("bursts", s.bursts, "", "bursts issued");
    out.count("bytes", s.bytes, "B", "bytes moved");
    out.real("busy_ns", to_ns(s.busy_time), "ns", "time with a burst in flight");
    out.count("max_outstanding", s.max_outstanding, "", "most bursts in flight at once");
  }
  PeEngine::report_stats(out, now_ns);
}

void PeDma::report_energy(EnergySink& out) const {
  const uint64_t bursts = stats(Channel::kRead).bursts + stats(Channel::kWrite).bursts;
  out.dynamic_pj(EnergyClass::kDma, static_cast<double>(bursts) * cfg_.energy.pj_per_burst);
  out.static_mw(EnergyClass::kDma, cfg_.energy.static_mw);
}

unsigned PeDma::trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const {
  for (auto c : {Channel::kRead, Channel::kWrite}) {
    const std::string ch = name + "." + to_string(c) + "_channel";
    sc_core::sc_trace(tf, busy_flag(c), ch + ".busy");
    sc_core::sc_trace(tf, outstanding_value(c), ch + ".outstanding");
  }
  return 4 + PeEngine::trace_signals(tf, name);
}

}  // namespace kb
