// PE_IPCQ: the PE's inter-PE queues, the substrate of collectives (docs/ARCHITECTURE.md §1.2).
//
// Receive side. For every peer it receives from, the PE opens a receive ring
// of `slots` slots of `slot_bytes` in one of its memories (TCM, HBM or its
// share of the cube SRAM: the receiver chooses). Opening sends the peer a
// GRANT message with the ring's base address: the peer now holds one credit
// per slot.
//
// Send side. A message is split into chunks of at most slot_bytes. Each chunk
// waits for the credit of the next slot in ring order (a sender stalls while
// the receiver has no free slot), then travels as a PE_DMA write from the
// source buffer into the receiver's slot, across the real fabric (crossbar,
// PE link, routers, cube links), and is followed by a DOORBELL message to the
// receiver's IPCQ registers (space IPCQ of the address map). The doorbell
// leaves only after the data has landed.
//
// Consuming. A recv command takes the next chunks of its peer's ring in ring
// order, each once its doorbell came: it copies the chunk into the
// destination (PE_DMA) or adds it into the destination (PE_MATH, through TCM
// staging where the ring or the destination is not in TCM), and only then
// returns the slot's credit to the sender (a CREDIT message). A slot is thus
// never handed out again before its content was consumed; a DOORBELL for a
// slot that is still full is a protocol violation and a simulation fault.
// With `forward`, each consumed chunk is sent on to another peer (NCCL's
// recvCopySend / recvReduceSend), chunk by chunk, without the PE_CPU.
//
// Control messages (GRANT, DOORBELL, CREDIT) are TLM writes of message_bytes
// from `port` to the peer's `regs`; their content rides in an extension. They
// travel as non-blocking transports (nb_transport_fw, answered by
// nb_transport_bw) with no thread carrying them: the peer acts on a message
// at the instant its annotated delay has passed, and the sender counts it
// delivered when the response is back, both where a blocking b_transport
// would have (see the calendar's timers).
// Commands on one peer's queue are served in issue order; different peers'
// queues run concurrently.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/address_map.h"
#include "models/common/calendar.h"
#include "models/common/due_timers.h"
#include "models/common/ring_queue.h"
#include "models/ipcq/ipcq_config.h"
#include "models/pe/pe_engine.h"

namespace kb {

// This PE's ring region in each memory it may hold receive rings in.
struct IpcqRegions {
  uint64_t tcm = 0, hbm = 0, sram = 0;                    // base addresses
  uint64_t tcm_bytes = 0, hbm_bytes = 0, sram_bytes = 0;  // region sizes
};

class PeIpcq : public PeEngine {
 public:
  static constexpr unsigned kSendLane = 0, kRecvLane = 1, kMsgLane = 2;

  tlm_utils::simple_initiator_socket<PeIpcq> port;  // control messages out (to the crossbar)
  tlm_utils::simple_target_socket<PeIpcq> regs;     // control messages in (from the crossbar)

  PeIpcq(const sc_core::sc_module_name& name, const IpcqConfig& cfg, const AddressMap& map,
         const Location& self, const IpcqRegions& regions);
  ~PeIpcq() override;

  // Between runs: true when no command, chunk or message is in flight.
  bool idle() const;
  // Drops every ring and grant (the next launch opens its own). Needs idle().
  void reset();
  // What this IPCQ waits for, one line per stuck queue (the deadlock report).
  std::vector<std::string> waiting() const;

  struct Stats {
    uint64_t commands = 0;     // open + send + recv commands served
    uint64_t chunks_sent = 0;  // slot-sized pieces written into a peer's ring
    uint64_t chunks_received = 0;
    uint64_t bytes_sent = 0;
    uint64_t messages = 0;       // control messages sent (grant, doorbell, credit)
    uint64_t credit_stalls = 0;  // chunks that waited for a credit (or a grant)
    double credit_wait_ns = 0;
  };
  const Stats& stats() const { return stats_; }
  const IpcqConfig& config() const { return cfg_; }

  // Instrumented: the Stats above as "<name>.queues", then the lanes.
  void report_stats(StatsSink& out, double now_ns) const override;
  // Per control message sent, and the static power (IpcqConfig::energy).
  void report_energy(EnergySink& out) const override;

 protected:
  void accept(TileToken* token) override;
  sc_core::sc_time service_time(const Stage&) const override { return sc_core::SC_ZERO_TIME; }

 private:
  struct SendJob {
    uint64_t cmd_id = 0;
    uint64_t src = 0, bytes = 0;
    std::function<void()> on_done;  // every chunk's doorbell delivered
  };
  // A job being sent, shared by the queue while it posts the job's chunks
  // and by each chunk until it is done (one allocation per job).
  struct SendTally {
    uint64_t chunks_left = 0;       // chunks whose token has not finished
    std::function<void()> on_done;  // runs when that reaches 0
  };
  struct SendQueue {
    PeAddr peer;
    bool granted = false;
    uint64_t ring_base = 0;
    unsigned slots = 0;
    std::vector<bool> credit;  // per slot: we may write it
    unsigned tail = 0;         // next slot to write
    RingQueue<SendJob> jobs;
    sc_core::sc_event kick;
    // The job being chunked (send_step's place in it).
    bool active = false;
    SendJob job;
    uint64_t chunks = 0, next_chunk = 0;
    std::shared_ptr<SendTally> tally;
    bool stalled = false;  // the next chunk waits for a credit (or the grant)
    sc_core::sc_time stalled_since;
  };
  enum class SlotState : uint8_t { kFree, kFull, kDraining };
  struct RecvQueue;
  struct RecvJob {
    RecvQueue* queue = nullptr;  // the stream it receives from
    TileToken* token = nullptr;  // the recv command's token
    const IpcqRecvCmd* cmd = nullptr;
    uint64_t chunks = 0, done = 0, forwarded = 0, forwards_left = 0;
    uint64_t taken = 0;  // chunks taken from the ring (recv_step)
    double start_ns = 0;
  };
  struct RecvQueue {
    PeAddr peer;
    RingSpace space = RingSpace::kTcm;
    uint64_t ring_base = 0;
    std::vector<SlotState> slots;
    std::vector<uint64_t> slot_bytes;            // payload of a full slot
    std::vector<uint64_t> slot_msg;              // its doorbell's trace id
    unsigned head = 0;                           // next slot to consume
    RingQueue<RecvJob*> waiting;                 // not started, in issue order
    std::vector<std::unique_ptr<RecvJob>> jobs;  // every unfinished job
    // Chunks to forward, in the order they came in: a chunk is forwarded
    // once it and every chunk before it are consumed, so the stream a peer
    // receives keeps this stream's order even when jobs overlap.
    struct Forward {
      RecvJob* job;
      uint64_t chunk;
      bool ready;
    };
    RingQueue<Forward> forwards;
    sc_core::sc_event kick;
  };

 public:
  struct Message;   // a control message (defined in the .cpp)
  struct Outgoing;  // a message in flight (defined in the .cpp)
  struct Incoming;  // a message arriving at this PE once its delay has passed

 private:
  void accept_command(TileToken* token);
  void open(TileToken* token, const IpcqOpenCmd& cmd);
  SendQueue& send_queue(const PeAddr& peer);
  // A peer's queue: an SC_METHOD run at each kick, doing what it can (posting
  // chunks while credits last; taking full slots in ring order) and keeping
  // its place in the queue's state until the next kick.
  void send_step(SendQueue* q);
  void recv_step(RecvQueue* q);
  // A data chunk's token and what its completion needs. Chunks are pooled:
  // once the pool holds as many as were ever in flight at once, a chunk
  // allocates nothing (its stage vector keeps its capacity, and on_done
  // captures only the PE_IPCQ and the chunk, which std::function stores in
  // place).
  struct Chunk {
    TileToken token;
    std::shared_ptr<SendTally> tally;  // send: the job's
    RecvQueue* queue = nullptr;        // recv
    RecvJob* job = nullptr;            // recv
    uint64_t k = 0;                    // recv: the chunk's index in its job
  };
  // A chunk from the pool, its token reset (stage vector empty).
  Chunk& take_chunk();
  // Back to the pool: the last thing a chunk's on_done does, since taking
  // it again replaces that very closure.
  void give_chunk(Chunk& c);
  void send_chunk_done(Chunk& c);
  void recv_chunk_done(Chunk& c);
  void consume_chunk(RecvQueue& q, RecvJob& job, uint64_t k, unsigned slot, uint64_t len);
  void chunk_consumed(RecvQueue& q, RecvJob& job, uint64_t k);
  void finish_recv(RecvQueue& q, RecvJob& job);
  void finish_command(TileToken& token, unsigned lane, double start_ns);
  // Sends a control message; `on_delivered` runs once the peer has it.
  void post_message(const Message& m, std::function<void()> on_delivered);
  // The two halves: a message record (pooled, keyed), then its transport.
  Outgoing& make_message(const Message& m);
  void send_message(Outgoing& o);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  // The message's response is back: delivered() runs when its annotated
  // delay has passed (delivering_).
  void delivered(Outgoing& o);
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  // Acts on an arrived message and answers it (the response leaves now).
  void arrive(tlm::tlm_generic_payload& trans);
  void deliver(const Message& m);
  uint64_t ring_region(RingSpace s) const;
  uint64_t ring_capacity(RingSpace s) const;
  [[noreturn]] void fault(uint64_t cmd_id, const std::string& why) const;

  IpcqConfig cfg_;
  const AddressMap& map_;
  Location self_;
  PeAddr me_;
  IpcqRegions regions_;
  uint64_t ring_used_[3] = {0, 0, 0};  // bump allocation per RingSpace
  std::map<PeAddr, std::unique_ptr<SendQueue>> send_;
  std::map<PeAddr, std::unique_ptr<RecvQueue>> recv_;
  std::map<PeAddr, uint64_t> doorbells_sent_;  // per peer, for the doorbells' trace ids
  struct OutgoingDeleter {
    void operator()(Outgoing* o) const;
  };
  struct IncomingDeleter {
    void operator()(Incoming* o) const;
  };
  // Every message record made (stable addresses), and those not in flight.
  std::vector<std::unique_ptr<Outgoing, OutgoingDeleter>> outgoing_;
  std::vector<Outgoing*> spare_outgoing_;
  std::vector<std::unique_ptr<Incoming, IncomingDeleter>> incoming_;
  std::vector<Incoming*> spare_incoming_;
  std::vector<std::unique_ptr<Chunk>> chunks_;  // every chunk made (stable addresses)
  std::vector<Chunk*> spare_chunks_;            // those not in flight
  // Messages' deliveries: the calendar's, or, with no delay left, this
  // delta's method (where a thread woken now would run).
  DueTimers delivering_{*this, "messages_delivered", "message_delivered"};
  std::vector<unsigned char> wire_;  // a message's bytes on the wire (content: the extension)
  uint64_t order_base_ = 0;          // this PE's control-message order keys
  unsigned msgs_in_flight_ = 0;
  uint64_t chunks_in_flight_ = 0, commands_in_flight_ = 0;
  std::map<uint64_t, uint64_t> msg_seq_;  // grants posted, per peer
  Stats stats_;
};

}  // namespace kb
