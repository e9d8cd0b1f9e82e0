// A routing node: the PE crossbar, a cube router, a SIP I/O hub, the host
// port. Every transaction is decoded through the platform's AddressMap, pays
// the node's traversal latency (on the way in and on the way back, added to
// the b_transport delay: models/common/annotated_delay.h), and is
// forwarded on the output port its routing policy picks. Contention is not
// modelled inside the node but on the links and targets behind its ports.
// An address the map rejects completes at once with TLM_ADDRESS_ERROR_RESPONSE.
// Non-blocking transports (PE_DMA's bursts carried without a worker) take the
// same route and latencies; their responses go back on the port they came in
// on, kept on the payload's HopStack (models/common/hop_stack.h).
#pragma once

#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include <utility>
#include <vector>

#include "models/common/address_map.h"
#include "models/common/energy.h"
#include "models/common/instrumented.h"

namespace kb {

class Link;

class Router : public sc_core::sc_module, public Instrumented {
 public:
  using RoutePolicy = std::function<unsigned(const Location&)>;

  tlm_utils::multi_passthrough_target_socket<Router> in;
  tlm_utils::multi_passthrough_initiator_socket<Router> out;

  Router(const sc_core::sc_module_name& name, const AddressMap& map, double latency_ns);

  // Which output port a destination leaves on. Set by the platform builder,
  // which knows what it bound to each port.
  void set_route_policy(RoutePolicy policy) { route_ = std::move(policy); }

  // What each output port leads to, for path queries (probe, tests).
  struct PortTarget {
    Link* link = nullptr;          // the link bound to this port, or
    std::string endpoint;          // the target's name when bound directly
    const Router* next = nullptr;  // the router behind the link, if any
  };
  unsigned add_port(PortTarget target);  // returns the port index
  const PortTarget& port(unsigned i) const { return ports_.at(i); }
  unsigned num_ports() const { return static_cast<unsigned>(ports_.size()); }
  unsigned route(const Location& dest) const { return route_(dest); }

  uint64_t transactions() const { return transactions_; }
  // Data bytes of the transactions routed.
  uint64_t bytes() const { return bytes_; }
  // What a traversal costs per bit, and the static power (the builder sets
  // it from the topology; default none).
  void set_energy(const BitEnergyConfig& energy) { energy_ = energy; }

  // Instrumented: the transactions and bytes routed; no signals; energy per
  // bit routed, static power.
  void report_stats(StatsSink& out, double now_ns) const override;
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;
  void report_energy(EnergySink& out) const override;

 private:
  void b_transport(int in_port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  // Non-blocking: BEGIN_REQ forward, BEGIN_RESP back to the port it came in
  // on, each way paying the hop's latency as b_transport does.
  tlm::tlm_sync_enum nb_transport_fw(int in_port, tlm::tlm_generic_payload& trans,
                                     tlm::tlm_phase& phase, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(int out_port, tlm::tlm_generic_payload& trans,
                                     tlm::tlm_phase& phase, sc_core::sc_time& delay);
  unsigned int transport_dbg(int in_port, tlm::tlm_generic_payload& trans);

  const AddressMap& map_;
  sc_core::sc_time latency_;
  RoutePolicy route_;
  std::vector<PortTarget> ports_;
  uint64_t transactions_ = 0;
  uint64_t bytes_ = 0;
  BitEnergyConfig energy_;
};

}  // namespace kb
