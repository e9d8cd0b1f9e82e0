#include "models/ipcq/pe_ipcq.h"

#include "models/common/energy.h"
#include "models/common/fault.h"

#include <algorithm>
#include <sstream>

#include "models/common/annotated_delay.h"
#include "models/common/errors.h"
#include "models/common/first_use_thread.h"
#include "models/common/hop_stack.h"
#include "models/common/request_order.h"
#include "models/common/sim_time.h"
#include "models/common/tlm_checker.h"
#include "models/pe/lowering.h"

namespace kb {

struct PeIpcq::Message {
  enum class Type : uint8_t { kGrant, kDoorbell, kCredit } type = Type::kDoorbell;
  PeAddr from, to;
  unsigned slot = 0;       // doorbell, credit
  uint64_t bytes = 0;      // doorbell: payload in the slot
  uint64_t ring_base = 0;  // grant
  unsigned slots = 0;      // grant
  uint64_t trace_id = 0;   // doorbell: its id in the op log (TileToken::msg)
};

// A control message in flight: its payload, reused for the next message.
struct PeIpcq::Outgoing final : Calendar::Timer {
  PeIpcq* ipcq = nullptr;
  Message m;
  uint64_t order_low = 0;              // bits 38..0 of its order key (see make_message)
  std::function<void()> on_delivered;  // a grant's: the end of its open command
  // A doorbell's or credit's op-log record, made when it is delivered: a
  // slim stage and token (the chunk's token moved on when it was posted).
  bool logs = false;
  Stage logged;
  TileToken shadow;
  double start_ns = 0;
  tlm::tlm_generic_payload trans;
  bool failed = false;  // refused on its way
  void on_time() override { ipcq->delivered(*this); }
};

// A message at this PE's registers, acted on when its annotated delay has passed.
struct PeIpcq::Incoming final : Calendar::Timer {
  PeIpcq* ipcq = nullptr;
  tlm::tlm_generic_payload* trans = nullptr;
  void on_time() override {
    tlm::tlm_generic_payload& t = *trans;
    trans = nullptr;
    ipcq->spare_incoming_.push_back(this);
    ipcq->arrive(t);
  }
};

void PeIpcq::OutgoingDeleter::operator()(Outgoing* o) const {
  delete o;
}

void PeIpcq::IncomingDeleter::operator()(Incoming* o) const {
  delete o;
}

PeIpcq::~PeIpcq() = default;

namespace {

constexpr const char* kIpcqMsgType = "/kernbench/pe_ipcq";

// The content of a control message, carried beside its wire bytes, and the
// sender's record of it (for the response).
struct IpcqMessageExt : tlm::tlm_extension<IpcqMessageExt> {
  const PeIpcq::Message* message = nullptr;  // alive for the transaction
  PeIpcq::Outgoing* outgoing = nullptr;
  tlm::tlm_extension_base* clone() const override { return new IpcqMessageExt(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    message = static_cast<const IpcqMessageExt&>(other).message;
    outgoing = static_cast<const IpcqMessageExt&>(other).outgoing;
  }
};

const char* type_name(int t) {
  static const char* const kNames[] = {"grant", "doorbell", "credit"};
  return kNames[t];
}

// The name of a peer's queue process, unique in its IPCQ ('.' is not allowed
// in names). The process is the IPCQ's child whichever process opened the queue
// (a command's lane, a grant's delivery): its name orders the DMA transfers
// it submits at one instant (PeDma), so it must not depend on that process.
std::string process_name(const char* what, const PeAddr& p) {
  return std::string(what) + "_" + std::to_string(p.sip) + "_" + std::to_string(p.cube) + "_" +
         std::to_string(p.pe);
}

}  // namespace

PeIpcq::PeIpcq(const sc_core::sc_module_name& name, const IpcqConfig& cfg, const AddressMap& map,
               const Location& self, const IpcqRegions& regions)
    : PeEngine(name, EngineKind::kIpcq, {"ipcq.send", "ipcq.recv", "ipcq.msg"}),
      port("port"),
      regs("regs"),
      cfg_(cfg),
      map_(map),
      self_(self),
      me_{self.sip, self.cube, self.pe},
      regions_(regions),
      wire_(cfg.message_bytes, 0),
      // Control messages order after data bursts at equal times
      // (models/common/request_order.h, order_bits).
      order_base_(pe_order_base(self.sip, self.cube, self.pe) | order_bits::kIpcqMessage) {
  regs.register_b_transport(this, &PeIpcq::b_transport);
  regs.register_nb_transport_fw(this, &PeIpcq::nb_transport_fw);
  port.register_nb_transport_bw(this, &PeIpcq::nb_transport_bw);
}

void PeIpcq::fault(uint64_t cmd_id, const std::string& why) const {
  std::ostringstream msg;
  msg << name() << ": ";
  if (cmd_id) msg << "command #" << cmd_id << ": ";
  msg << why;
  raise_fault(kIpcqMsgType, msg.str());
}

uint64_t PeIpcq::ring_capacity(RingSpace s) const {
  switch (s) {
    case RingSpace::kTcm:
      return regions_.tcm_bytes;
    case RingSpace::kHbm:
      return regions_.hbm_bytes;
    case RingSpace::kSram:
      return regions_.sram_bytes;
  }
  return 0;
}

uint64_t PeIpcq::ring_region(RingSpace s) const {
  switch (s) {
    case RingSpace::kTcm:
      return regions_.tcm;
    case RingSpace::kHbm:
      return regions_.hbm;
    case RingSpace::kSram:
      return regions_.sram;
  }
  return 0;
}

bool PeIpcq::idle() const {
  if (chunks_in_flight_ || commands_in_flight_ || msgs_in_flight_) return false;
  for (const auto& [peer, q] : send_)
    if (!q->jobs.empty() || q->active) return false;
  for (const auto& [peer, q] : recv_)
    if (!q->jobs.empty()) return false;
  return true;
}

void PeIpcq::reset() {
  for (auto& [peer, q] : send_) {
    q->granted = false;
    q->credit.clear();
    q->tail = 0;
  }
  for (auto& [peer, q] : recv_) {
    q->slots.clear();
    q->slot_bytes.clear();
    q->slot_msg.clear();
    q->head = 0;
  }
  ring_used_[0] = ring_used_[1] = ring_used_[2] = 0;
}

std::vector<std::string> PeIpcq::waiting() const {
  std::vector<std::string> out;
  for (const auto& [peer, q] : recv_) {
    if (q->jobs.empty()) continue;
    const RecvJob& j = q->waiting.empty() ? *q->jobs.front() : *q->waiting.front();
    std::ostringstream s;
    s << "recv from " << to_string(peer) << " (command #" << j.token->cmd_id << ", " << j.done
      << " of " << j.chunks << " chunks consumed";
    if (j.forwards_left) s << ", " << j.forwards_left << " forward(s) pending";
    s << "; " << q->jobs.size() << " recv(s) unfinished)";
    out.push_back(s.str());
  }
  for (const auto& [peer, q] : send_) {
    if (q->jobs.empty() && !q->active) continue;
    std::ostringstream s;
    s << "send to " << to_string(peer) << " (";
    if (!q->granted)
      s << "no grant: " << to_string(peer) << " never opened a ring for this PE";
    else
      s << "waiting for the credit of slot " << q->tail;
    s << "; " << q->jobs.size() << " message(s) queued)";
    out.push_back(s.str());
  }
  return out;
}

// ---- commands ------------------------------------------------------------------

void PeIpcq::accept(TileToken* token) {
  Stage& st = token->current();
  if (st.kind == StageKind::kIpcq) {
    accept_command(token);
    return;
  }
  // A chunk token's control message: the doorbell after a chunk landed, or
  // the credit after a slot was consumed. The chunk is done once the message
  // is posted; the message travels on its own.
  Message m;
  m.type = st.ipcq.signal == IpcqStage::Signal::kDoorbell ? Message::Type::kDoorbell
                                                          : Message::Type::kCredit;
  m.from = me_;
  m.to = st.ipcq.peer;
  m.slot = st.ipcq.slot;
  m.bytes = st.ipcq.bytes;
  if (m.type == Message::Type::kCredit) {
    // The slot's content is consumed: it is free before its credit leaves.
    RecvQueue& q = *recv_.at(m.to);
    q.slots.at(m.slot) = SlotState::kFree;
  }
  lane_enter(kMsgLane, token->cmd_id);
  if (m.type == Message::Type::kDoorbell) {
    // (sender, receiver, the pair's doorbell count): unique among the
    // doorbells in flight, whatever order the kernel ran the PEs in.
    m.trace_id = pe_key_index(me_.sip, me_.cube, me_.pe) << 40 |
                 pe_key_index(m.to.sip, m.to.cube, m.to.pe) << 16 |
                 (doorbells_sent_[m.to]++ & 0xffff);
  }
  Outgoing& o = make_message(m);
  o.logs = true;
  o.start_ns = to_ns(sim_now());
  o.logged.kind = st.kind;
  o.logged.op_kind = st.op_kind;
  o.logged.addr = st.addr;
  o.logged.bytes = cfg_.message_bytes;  // the message's wire size
  o.shadow.cmd_id = token->cmd_id;
  o.shadow.tile = token->tile;
  o.shadow.peer = m.to;
  o.shadow.has_peer = true;
  o.shadow.msg = m.type == Message::Type::kDoorbell ? m.trace_id : 0;
  send_message(o);
  advance(*token);
}

void PeIpcq::finish_command(TileToken& token, unsigned lane, double start_ns) {
  lane_leave(lane);
  --commands_in_flight_;
  record(token, token.current(), lane, start_ns, to_ns(sim_now()));
  advance(token);
}

void PeIpcq::accept_command(TileToken* token) {
  const Command* cmd = token->current().ipcq.cmd;
  ++stats_.commands;
  ++commands_in_flight_;
  const double start = to_ns(sim_now());
  if (const auto* o = std::get_if<IpcqOpenCmd>(cmd)) {
    lane_enter(kRecvLane, token->cmd_id);
    open(token, *o);
    return;
  }
  if (const auto* s = std::get_if<IpcqSendCmd>(cmd)) {
    SendQueue& q = send_queue(s->peer);
    SendJob job;
    job.cmd_id = token->cmd_id;
    job.src = s->src.addr;
    job.bytes = s->src.bytes();
    lane_enter(kSendLane, token->cmd_id);
    job.on_done = [this, token, start] { finish_command(*token, kSendLane, start); };
    q.jobs.push_back(std::move(job));
    q.kick.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  const auto& r = std::get<IpcqRecvCmd>(*cmd);
  auto it = recv_.find(r.peer);
  if (it == recv_.end() || it->second->slots.empty())
    fault(token->cmd_id, "recv from " + to_string(r.peer) +
                             ", but no ring is open for that peer (open it first: ipcq_open)");
  if (r.dst.row_stride != 0 && r.dst.row_stride != r.dst.cols())
    fault(token->cmd_id, "recv destination " + r.dst.describe() + " is not contiguous");
  if (r.reduce && r.dst.bytes() % dtype_bytes(r.dst.dtype) != 0)
    fault(token->cmd_id, "reduce destination is not a whole number of elements");
  RecvQueue& q = *it->second;
  auto job = std::make_unique<RecvJob>();
  job->queue = &q;
  job->token = token;
  job->cmd = &r;
  job->chunks = lowering::chunk_count(r.dst.bytes(), cfg_.slot_bytes);
  job->start_ns = start;
  lane_enter(kRecvLane, token->cmd_id);
  q.waiting.push_back(job.get());
  q.jobs.push_back(std::move(job));
  q.kick.notify(sc_core::SC_ZERO_TIME);
}

void PeIpcq::open(TileToken* token, const IpcqOpenCmd& cmd) {
  const uint64_t ring = cfg_.slots * cfg_.slot_bytes;
  const int space = static_cast<int>(cmd.space);
  auto grants = std::make_shared<size_t>(cmd.peers.size());
  const double start = to_ns(sim_now());
  for (const PeAddr& peer : cmd.peers) {
    auto& slot = recv_[peer];
    if (!slot) {
      slot = std::make_unique<RecvQueue>();
      slot->peer = peer;
      RecvQueue* q = slot.get();
      start_method_on_first_use(
          *this, process_name("recv_from", peer).c_str(), q->kick, [this, q] { recv_step(q); },
          /*run_now=*/true);
    }
    RecvQueue& q = *slot;
    if (!q.slots.empty())
      fault(token->cmd_id, "a ring for peer " + to_string(peer) + " is already open");
    if (ring_used_[space] + ring > ring_capacity(cmd.space))
      fault(token->cmd_id, "no room for another ring in " + std::string(to_string(cmd.space)) +
                               ": " + std::to_string(ring_used_[space] / ring) + " rings of " +
                               std::to_string(ring) + " bytes fill its region of " +
                               std::to_string(ring_capacity(cmd.space)) +
                               " bytes (pe.ipcq.ring_bytes)");
    q.space = cmd.space;
    q.ring_base = ring_region(cmd.space) + ring_used_[space];
    ring_used_[space] += ring;
    q.slots.assign(cfg_.slots, SlotState::kFree);
    q.slot_bytes.assign(cfg_.slots, 0);
    q.slot_msg.assign(cfg_.slots, 0);
    q.head = 0;
    Message m;
    m.type = Message::Type::kGrant;
    m.from = me_;
    m.to = peer;
    m.ring_base = q.ring_base;
    m.slots = cfg_.slots;
    post_message(m, [this, token, grants, start] {
      if (--*grants == 0) finish_command(*token, kRecvLane, start);
    });
  }
  if (cmd.peers.empty()) finish_command(*token, kRecvLane, start);
}

PeIpcq::SendQueue& PeIpcq::send_queue(const PeAddr& peer) {
  auto& slot = send_[peer];
  if (!slot) {
    slot = std::make_unique<SendQueue>();
    slot->peer = peer;
    SendQueue* q = slot.get();
    start_method_on_first_use(
        *this, process_name("send_to", peer).c_str(), q->kick, [this, q] { send_step(q); },
        /*run_now=*/true);
  }
  return *slot;
}

// ---- send side ---------------------------------------------------------------

void PeIpcq::send_step(SendQueue* q) {
  for (;;) {
    if (!q->active) {
      if (q->jobs.empty()) return;  // until the next kick
      q->job = std::move(q->jobs.front());
      q->jobs.pop_front();
      q->active = true;
      q->chunks = lowering::chunk_count(q->job.bytes, cfg_.slot_bytes);
      q->next_chunk = 0;
      q->tally = std::make_shared<SendTally>();
      q->tally->chunks_left = q->chunks;
      q->tally->on_done = std::move(q->job.on_done);
    }
    const SendJob& job = q->job;
    for (; q->next_chunk < q->chunks; ++q->next_chunk) {
      const uint64_t k = q->next_chunk;
      if (!q->granted || !q->credit[q->tail]) {
        if (!q->stalled) {
          ++stats_.credit_stalls;
          q->stalled = true;
          q->stalled_since = sim_now();
        }
        return;  // until a kick brings the credit (or the grant)
      }
      if (q->stalled) {
        q->stalled = false;
        stats_.credit_wait_ns += to_ns(sim_now() - q->stalled_since);
      }
      const unsigned slot = q->tail;
      q->credit[slot] = false;
      q->tail = (q->tail + 1) % q->slots;
      const uint64_t len = lowering::chunk_bytes(job.bytes, k, cfg_.slot_bytes);
      Chunk& c = take_chunk();
      TileToken* t = &c.token;
      t->cmd_id = job.cmd_id;
      t->tile = "send" + std::to_string(k);
      t->peer = q->peer;
      t->has_peer = true;
      lowering::send_chunk(job.cmd_id, job.src + k * cfg_.slot_bytes,
                           q->ring_base + slot * cfg_.slot_bytes, len, q->peer, slot,
                           map_.ipcq(q->peer.sip, q->peer.cube, q->peer.pe), t->stages);
      ++chunks_in_flight_;
      ++stats_.chunks_sent;
      stats_.bytes_sent += len;
      c.tally = q->tally;
      Chunk* cp = &c;
      t->on_done = [this, cp](TileToken&) { send_chunk_done(*cp); };
      post_token(engine_for(EngineKind::kDma), t);
    }
    q->active = false;
    q->tally.reset();
  }
}

// ---- receive side ----------------------------------------------------------------

void PeIpcq::recv_step(RecvQueue* q) {
  while (!q->waiting.empty()) {
    RecvJob& job = *q->waiting.front();
    const IpcqRecvCmd& r = *job.cmd;
    const uint64_t total = r.dst.bytes();
    for (; job.taken < job.chunks; ++job.taken) {
      if (q->slots.empty() || q->slots[q->head] != SlotState::kFull) return;  // until a doorbell
      const uint64_t k = job.taken;
      const unsigned slot = q->head;
      const uint64_t len = lowering::chunk_bytes(total, k, cfg_.slot_bytes);
      if (q->slot_bytes[slot] != len)
        fault(job.token->cmd_id, "message size mismatch from " + to_string(q->peer) + ": slot " +
                                     std::to_string(slot) + " holds a chunk of " +
                                     std::to_string(q->slot_bytes[slot]) + " bytes, this recv of " +
                                     std::to_string(total) + " bytes expects " +
                                     std::to_string(len) + " in chunk " + std::to_string(k));
      q->slots[slot] = SlotState::kDraining;
      q->head = (q->head + 1) % static_cast<unsigned>(q->slots.size());
      if (r.forward) q->forwards.push_back({&job, k, false});
      consume_chunk(*q, job, k, slot, len);
    }
    // Every chunk of this job is taken: the next job may start on the
    // following slots while this one's chunks are still being consumed and
    // forwarded (waiting for that could close a credit cycle around a ring).
    q->waiting.pop_front();
  }
}

void PeIpcq::consume_chunk(RecvQueue& q, RecvJob& job, uint64_t k, unsigned slot, uint64_t len) {
  const IpcqRecvCmd& r = *job.cmd;
  const uint64_t scratch_bytes = 2 * uint64_t{cfg_.slots} * cfg_.slot_bytes;
  lowering::RecvChunk c;
  c.cmd_id = job.token->cmd_id;
  c.ring = q.ring_base + slot * cfg_.slot_bytes;
  c.dst = r.dst.addr + k * cfg_.slot_bytes;
  c.len = len;
  c.scratch = r.scratch.addr + uint64_t{slot} * 2 * cfg_.slot_bytes;  // this slot's share
  c.slot_bytes = cfg_.slot_bytes;
  if (r.reduce && lowering::reduce_needs_scratch(c, self_) &&
      (!r.scratch.valid() || r.scratch.bytes() < scratch_bytes || !r.scratch.in_tcm()))
    fault(c.cmd_id,
          "a reduce with its ring or destination outside TCM needs TCM scratch of "
          "2 * slots * slot_bytes = " +
              std::to_string(scratch_bytes) + " bytes");
  Chunk& ch = take_chunk();
  TileToken* t = &ch.token;
  t->cmd_id = c.cmd_id;
  t->tile = "recv" + std::to_string(k);
  t->peer = q.peer;
  t->has_peer = true;
  t->msg = q.slot_msg[slot];
  lowering::recv_chunk(r, c, self_, t->stages);
  lowering::credit(t->stages.emplace_back(), q.peer, slot,
                   map_.ipcq(q.peer.sip, q.peer.cube, q.peer.pe));
  ++chunks_in_flight_;
  ++stats_.chunks_received;
  ch.queue = &q;
  ch.job = &job;
  ch.k = k;
  Chunk* cp = &ch;
  t->on_done = [this, cp](TileToken&) { recv_chunk_done(*cp); };
  post_token(engine_for(engine_of(t->stages.front().kind)), t);
}

PeIpcq::Chunk& PeIpcq::take_chunk() {
  if (spare_chunks_.empty()) return *chunks_.emplace_back(std::make_unique<Chunk>());
  Chunk& c = *spare_chunks_.back();
  spare_chunks_.pop_back();
  c.token.reset();
  return c;
}

void PeIpcq::give_chunk(Chunk& c) {
  c.tally.reset();
  spare_chunks_.push_back(&c);
}

void PeIpcq::send_chunk_done(Chunk& c) {
  --chunks_in_flight_;
  const std::shared_ptr<SendTally> tally = std::move(c.tally);
  if (--tally->chunks_left == 0 && tally->on_done) tally->on_done();
  give_chunk(c);
}

void PeIpcq::recv_chunk_done(Chunk& c) {
  --chunks_in_flight_;
  chunk_consumed(*c.queue, *c.job, c.k);
  give_chunk(c);
}

void PeIpcq::chunk_consumed(RecvQueue& q, RecvJob& job, uint64_t k) {
  ++job.done;
  if (job.cmd->forward) {
    for (auto& f : q.forwards)
      if (f.job == &job && f.chunk == k) f.ready = true;
    // Forward every consumed chunk at the front of the stream, in order.
    while (!q.forwards.empty() && q.forwards.front().ready) {
      RecvJob& j = *q.forwards.front().job;
      const uint64_t c = q.forwards.front().chunk;
      q.forwards.pop_front();
      const IpcqRecvCmd& r = *j.cmd;
      SendQueue& out = send_queue(r.forward_to);
      SendJob s;
      s.cmd_id = j.token->cmd_id;
      s.src = r.dst.addr + c * cfg_.slot_bytes;
      s.bytes = lowering::chunk_bytes(r.dst.bytes(), c, cfg_.slot_bytes);
      ++j.forwarded;
      ++j.forwards_left;
      RecvJob* jp = &j;  // two pointers: std::function keeps them in place
      s.on_done = [this, jp] {
        --jp->forwards_left;
        finish_recv(*jp->queue, *jp);
      };
      out.jobs.push_back(std::move(s));
      out.kick.notify(sc_core::SC_ZERO_TIME);
    }
  }
  finish_recv(q, job);
}

void PeIpcq::finish_recv(RecvQueue& q, RecvJob& job) {
  if (job.done < job.chunks || job.forwards_left > 0) return;
  if (job.cmd->forward && job.forwarded < job.chunks) return;
  auto it = std::find_if(q.jobs.begin(), q.jobs.end(),
                         [&](const std::unique_ptr<RecvJob>& j) { return j.get() == &job; });
  std::unique_ptr<RecvJob> owned = std::move(*it);
  q.jobs.erase(it);
  finish_command(*owned->token, kRecvLane, owned->start_ns);
}

// ---- control messages ------------------------------------------------------------

PeIpcq::Outgoing& PeIpcq::make_message(const Message& m) {
  Outgoing* o;
  if (spare_outgoing_.empty()) {
    o = outgoing_.emplace_back(new Outgoing).get();
    o->ipcq = this;
    o->trans.set_extension(new RequestOrder);  // owned by the payload
    o->trans.set_extension(new HopStack);
    auto* ext = new IpcqMessageExt;
    ext->message = &o->m;
    ext->outgoing = o;
    o->trans.set_extension(ext);
  } else {
    o = spare_outgoing_.back();
    spare_outgoing_.pop_back();
  }
  o->m = m;
  o->failed = false;
  o->logs = false;
  // Order key below the PE and control bits: (type, peer, then the slot for
  // doorbells and credits, the stream's post sequence for grants). Messages
  // posted at the same instant by different processes (a doorbell and a
  // credit, two chunks' doorbells whose DMAs landed together) therefore
  // tie-break the same way whatever order the kernel ran those processes in:
  // a stream never has two same-instant messages for one slot, and grants are
  // posted by the opening command in program order. 13 bits keep the slot or
  // sequence; only same-instant messages of one stream compare on them.
  static_assert(static_cast<uint64_t>(Message::Type::kCredit) < 4,
                "the message type has two bits of the order key");
  const uint64_t peer = pe_key_index(m.to.sip, m.to.cube, m.to.pe);
  const auto type = static_cast<uint64_t>(m.type);
  const uint64_t low =
      m.type == Message::Type::kGrant ? msg_seq_[type << 24 | peer]++ : uint64_t{m.slot};
  o->order_low =
      type << order_bits::kMsgType | peer << order_bits::kMsgPeer | (low & order_bits::kMsgLowMask);
  return *o;
}

void PeIpcq::post_message(const Message& m, std::function<void()> on_delivered) {
  Outgoing& o = make_message(m);
  o.on_delivered = std::move(on_delivered);
  send_message(o);
}

void PeIpcq::send_message(Outgoing& o) {
  ++msgs_in_flight_;
  ++stats_.messages;
  RequestOrder* order = nullptr;
  o.trans.get_extension(order);
  order->key = order_base_ | o.order_low;
  const uint64_t addr = map_.ipcq(o.m.to.sip, o.m.to.cube, o.m.to.pe);
  tlm::tlm_generic_payload& trans = o.trans;
  trans.set_command(tlm::TLM_WRITE_COMMAND);
  trans.set_address(addr);
  trans.set_data_ptr(wire_.data());
  trans.set_data_length(static_cast<unsigned>(wire_.size()));
  trans.set_streaming_width(static_cast<unsigned>(wire_.size()));
  trans.set_byte_enable_ptr(nullptr);
  trans.set_byte_enable_length(0);
  trans.set_dmi_allowed(false);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  if (port->nb_transport_fw(trans, phase, delay) == tlm::TLM_COMPLETED) {  // refused at once
    o.failed = true;
    delivering_.call_in(o, delay);
  }
}

tlm::tlm_sync_enum PeIpcq::nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase&,
                                           sc_core::sc_time& delay) {
  IpcqMessageExt* ext = nullptr;
  trans.get_extension(ext);
  Outgoing& o = *ext->outgoing;
  o.failed = trans.is_response_error();
  delivering_.call_in(o, delay);
  return tlm::TLM_COMPLETED;
}

void PeIpcq::delivered(Outgoing& o) {
  if (o.failed) {
    const uint64_t addr = o.trans.get_address();
    std::string why;
    if (map_.resolve(addr, wire_.size(), &why)) why = "refused by its target";
    fault(0, std::string("control message (") + type_name(static_cast<int>(o.m.type)) + ") to " +
                 to_string(o.m.to) + " failed: " + why);
  }
  std::function<void()> on_delivered = std::move(o.on_delivered);
  o.on_delivered = nullptr;
  if (o.logs) {
    lane_leave(kMsgLane);
    record(o.shadow, o.logged, kMsgLane, o.start_ns, to_ns(sim_now()));
  }
  spare_outgoing_.push_back(&o);
  --msgs_in_flight_;
  if (on_delivered) on_delivered();
}

void PeIpcq::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  TlmCheck check(*this, trans, delay);
  IpcqMessageExt* ext = nullptr;
  trans.get_extension(ext);
  if (trans.get_command() != tlm::TLM_WRITE_COMMAND || !ext || !ext->message) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  sync_delay(delay);  // deliver when the message arrives, not when it was sent
  deliver(*ext->message);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

tlm::tlm_sync_enum PeIpcq::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                           sc_core::sc_time& delay) {
  IpcqMessageExt* ext = nullptr;
  trans.get_extension(ext);
  if (phase != tlm::BEGIN_REQ || trans.get_command() != tlm::TLM_WRITE_COMMAND || !ext ||
      !ext->message) {
    trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  if (delay == sc_core::SC_ZERO_TIME) {  // arrived: act on it now, as b_transport would
    arrive(trans);
    return tlm::TLM_ACCEPTED;
  }
  Incoming* in;
  if (spare_incoming_.empty()) {
    in = incoming_.emplace_back(new Incoming).get();
    in->ipcq = this;
  } else {
    in = spare_incoming_.back();
    spare_incoming_.pop_back();
  }
  in->trans = &trans;
  Calendar::get().call_in(*in, delay);
  return tlm::TLM_ACCEPTED;
}

void PeIpcq::arrive(tlm::tlm_generic_payload& trans) {
  IpcqMessageExt* ext = nullptr;
  trans.get_extension(ext);
  deliver(*ext->message);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time latency = sc_core::SC_ZERO_TIME;
  regs->nb_transport_bw(trans, phase, latency);
}

void PeIpcq::deliver(const Message& m) {
  switch (m.type) {
    case Message::Type::kGrant: {
      SendQueue& q = send_queue(m.from);
      q.granted = true;
      q.ring_base = m.ring_base;
      q.slots = m.slots;
      q.credit.assign(m.slots, true);
      q.tail = 0;
      q.kick.notify(sc_core::SC_ZERO_TIME);
      return;
    }
    case Message::Type::kCredit: {
      auto it = send_.find(m.from);
      if (it == send_.end() || !it->second->granted || m.slot >= it->second->credit.size() ||
          it->second->credit[m.slot])
        fault(0, "credit from " + to_string(m.from) + " for slot " + std::to_string(m.slot) +
                     " that was not in use");
      it->second->credit[m.slot] = true;
      it->second->kick.notify(sc_core::SC_ZERO_TIME);
      return;
    }
    case Message::Type::kDoorbell: {
      auto it = recv_.find(m.from);
      if (it == recv_.end() || it->second->slots.empty() || m.slot >= it->second->slots.size())
        fault(0, "doorbell from " + to_string(m.from) + " for slot " + std::to_string(m.slot) +
                     " of a ring that is not open");
      RecvQueue& q = *it->second;
      if (q.slots[m.slot] != SlotState::kFree)
        fault(0, "doorbell from " + to_string(m.from) + " for slot " + std::to_string(m.slot) +
                     " whose previous content was not consumed yet (slot overwritten)");
      q.slots[m.slot] = SlotState::kFull;
      q.slot_bytes[m.slot] = m.bytes;
      q.slot_msg[m.slot] = m.trace_id;
      q.kick.notify(sc_core::SC_ZERO_TIME);
      return;
    }
  }
}

void PeIpcq::report_energy(EnergySink& out) const {
  out.dynamic_pj(EnergyClass::kIpcq,
                 static_cast<double>(stats_.messages) * cfg_.energy.pj_per_message);
  out.static_mw(EnergyClass::kIpcq, cfg_.energy.static_mw);
}

void PeIpcq::report_stats(StatsSink& out, double now_ns) const {
  if (stats_.commands > 0 || out.describing()) {
    out.group(std::string(name()) + ".queues");
    out.count("commands", stats_.commands, "", "open, send and recv commands served");
    out.count("chunks_sent", stats_.chunks_sent, "",
              "slot-sized pieces written into a peer's ring");
    out.count("chunks_received", stats_.chunks_received, "", "slot-sized pieces consumed");
    out.count("bytes_sent", stats_.bytes_sent, "B", "bytes sent");
    out.count("messages", stats_.messages, "", "control messages sent (grant, doorbell, credit)");
    out.count("credit_stalls", stats_.credit_stalls, "",
              "chunks that waited for a credit or a grant");
    out.real("credit_wait_ns", stats_.credit_wait_ns, "ns", "time those chunks waited");
  }
  PeEngine::report_stats(out, now_ns);
}

}  // namespace kb
