// One direction of a point-to-point link (cube<->cube, PE<->router,
// SIP<->SIP, host H2D/D2H).
//
// A transaction entering `in` is serialised on this direction's wire (a FIFO
// ServiceQueue at the link bandwidth), then pays the propagation latency and
// leaves on `out`. Its response travels back over the opposite direction
// (`set_reverse`), serialised on that direction's wire in FIFO order with
// that direction's own traffic. What crosses a wire:
//   request  : WRITE payload bytes, or a header-only READ request
//   response : READ payload bytes, or a header-only WRITE acknowledgement
// Every packet (at most packet_bytes of payload; a header-only message is one
// packet) adds header_bytes on the wire. The propagation latency is added to
// the b_transport delay, not waited (models/common/annotated_delay.h); the
// wire queue is entered at the annotated time.
//
// A non-blocking transport (nb_transport_fw, answered by nb_transport_bw:
// PE_DMA's bursts carried without a worker) crosses the same way with no
// thread waiting: the wire's end of service forwards the request, the
// response's crossing of the reverse wire sends it back, each at the instant
// and in the delta the blocking crossing would have.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/completion.h"
#include "models/common/service_queue.h"
#include "models/common/sim_time.h"
#include "models/link/link_config.h"

namespace kb {

class Link : public sc_core::sc_module, public Instrumented {
 public:
  tlm_utils::simple_target_socket<Link> in;
  tlm_utils::simple_initiator_socket<Link> out;

  Link(const sc_core::sc_module_name& name, const LinkConfig& cfg);

  // The opposite direction of the same physical link, which carries responses.
  void set_reverse(Link* reverse) { reverse_ = reverse; }
  Link* reverse() const { return reverse_; }

  const LinkConfig& config() const { return cfg_; }
  // Payload bandwidth once per-packet headers are paid (GB/s).
  double effective_bandwidth_gbps() const;
  uint64_t wire_bytes(uint64_t payload_bytes) const;

  ServiceQueue& wire() { return wire_; }
  const ServiceQueue& wire() const { return wire_; }

  // Serialise `payload_bytes` on this direction (entering the wire at the
  // annotated `delay`) and add its latency to `delay` (used for this
  // direction's requests and for responses of the reverse one).
  void carry(uint64_t payload_bytes, uint64_t order, sc_core::sc_time& delay);

  // Draws the wire's energy on `meter` (power over time).
  void set_power_meter(PowerMeter* meter) { wire_.set_power_meter(meter); }

  // Bytes this direction has put on its wire, headers included.
  uint64_t wire_bytes_carried() const { return wire_bytes_carried_; }

  // Instrumented: wire bytes (the wire reports its queue); energy per bit on
  // the wire, static power (LinkConfig::energy).
  void report_stats(StatsSink& out, double now_ns) const override;
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;
  void report_energy(EnergySink& out) const override;

 private:
  // A non-blocking request crossing this link: what it waits for.
  struct Crossing final : Completion::Resume {
    Link* link = nullptr;
    tlm::tlm_generic_payload* trans = nullptr;
    bool responding = false;  // the response is on the reverse wire
    Completion wire;          // the wire it waits for has carried it
    void resume() override;
  };

  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  // Puts `payload_bytes` on this direction's wire, entering it when `delay`
  // has passed (then zeroed), `served` told when it is carried: false when
  // nothing goes on the wire (no headers, no payload), which takes no time.
  bool enter_wire(uint64_t payload_bytes, uint64_t order, sc_core::sc_time& delay,
                  Completion* served);
  // The request has crossed (its latency in `delay`): on to the next hop.
  void forward(Crossing& c, sc_core::sc_time& delay);
  // The response is here: onto the reverse wire, then back.
  void respond(Crossing& c, sc_core::sc_time& delay);
  // The response has crossed back: to the previous hop.
  void finish(Crossing& c, sc_core::sc_time& delay);

  LinkConfig cfg_;
  TransferTime wire_time_;
  sc_core::sc_time latency_;
  Link* reverse_ = nullptr;
  ServiceQueue wire_;
  uint64_t wire_bytes_carried_ = 0;
  // Crossings not in flight, reused: a request allocates none.
  std::vector<std::unique_ptr<Crossing>> spare_;
};

}  // namespace kb
