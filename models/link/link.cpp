#include "models/link/link.h"

#include "models/common/energy.h"
#include "models/common/hop_stack.h"
#include "models/common/request_order.h"
#include "models/common/sim_time.h"
#include "models/common/tlm_checker.h"

namespace kb {

Link::Link(const sc_core::sc_module_name& name, const LinkConfig& cfg)
    : sc_core::sc_module(name),
      in("in"),
      out("out"),
      cfg_(cfg),
      wire_time_(cfg.bandwidth_gbps),
      latency_(ns_to_time(cfg.latency_ns)),
      wire_("wire") {
  in.register_b_transport(this, &Link::b_transport);
  in.register_nb_transport_fw(this, &Link::nb_transport_fw);
  out.register_nb_transport_bw(this, &Link::nb_transport_bw);
  in.register_transport_dbg(this, &Link::transport_dbg);
}

uint64_t Link::wire_bytes(uint64_t payload_bytes) const {
  return static_cast<uint64_t>(kb::wire_bytes(cfg_, static_cast<double>(payload_bytes)));
}

double Link::effective_bandwidth_gbps() const {
  return cfg_.bandwidth_gbps * static_cast<double>(cfg_.packet_bytes) /
         static_cast<double>(cfg_.packet_bytes + cfg_.header_bytes);
}

bool Link::enter_wire(uint64_t payload_bytes, uint64_t order, sc_core::sc_time& delay,
                      Completion* served) {
  const uint64_t on_wire = wire_bytes(payload_bytes);
  if (on_wire == 0) return false;
  wire_bytes_carried_ += on_wire;
  // The wire's FIFO orders by the time the packets reach it: the request
  // joins it when the annotated delay has passed.
  wire_.push_after(delay, wire_time_(on_wire), payload_bytes, served, order,
                   cfg_.energy.dynamic_pj(on_wire));
  delay = sc_core::SC_ZERO_TIME;
  return true;
}

void Link::carry(uint64_t payload_bytes, uint64_t order, sc_core::sc_time& delay) {
  PooledCompletion sent;
  if (enter_wire(payload_bytes, order, delay, sent.get())) sent->wait();
  delay += latency_;  // flight time: annotated, not waited
}

void Link::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  TlmCheck check(*this, trans, delay);
  const bool is_write = trans.get_command() == tlm::TLM_WRITE_COMMAND;
  const uint64_t len = trans.get_data_length();
  const uint64_t order = order_key(trans);
  carry(is_write ? len : 0, order, delay);
  out->b_transport(trans, delay);
  Link* back = reverse_ ? reverse_ : this;
  back->carry(is_write ? 0 : len, order, delay);
}

tlm::tlm_sync_enum Link::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                         sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ || !HopStack::of(trans)) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  Crossing* c;
  if (spare_.empty()) {
    c = new Crossing;
    c->link = this;
    c->wire.set_resume(c);
  } else {
    c = spare_.back().release();
    spare_.pop_back();
  }
  c->trans = &trans;
  c->responding = false;
  const bool is_write = trans.get_command() == tlm::TLM_WRITE_COMMAND;
  if (!enter_wire(is_write ? trans.get_data_length() : 0, order_key(trans), delay, &c->wire)) {
    delay += latency_;
    forward(*c, delay);
  }
  return tlm::TLM_ACCEPTED;
}

void Link::Crossing::resume() {
  // The wire has carried it (its time waited): the flight latency is next.
  if (!responding) {
    sc_core::sc_time delay = link->latency_;
    link->forward(*this, delay);
  } else {
    const Link* back = link->reverse_ ? link->reverse_ : link;
    sc_core::sc_time delay = back->latency_;
    link->finish(*this, delay);
  }
}

void Link::forward(Crossing& c, sc_core::sc_time& delay) {
  HopStack::of(*c.trans)->push({-1, &c});
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  if (out->nb_transport_fw(*c.trans, phase, delay) == tlm::TLM_COMPLETED) {  // refused at once
    HopStack::of(*c.trans)->pop();
    respond(c, delay);
  }
}

tlm::tlm_sync_enum Link::nb_transport_bw(tlm::tlm_generic_payload& trans, tlm::tlm_phase&,
                                         sc_core::sc_time& delay) {
  respond(*static_cast<Crossing*>(HopStack::of(trans)->pop().state), delay);
  return tlm::TLM_COMPLETED;
}

void Link::respond(Crossing& c, sc_core::sc_time& delay) {
  Link* back = reverse_ ? reverse_ : this;
  const bool is_write = c.trans->get_command() == tlm::TLM_WRITE_COMMAND;
  c.responding = true;
  if (back->enter_wire(is_write ? 0 : c.trans->get_data_length(), order_key(*c.trans), delay,
                       &c.wire))
    return;
  delay += back->latency_;
  finish(c, delay);
}

void Link::finish(Crossing& c, sc_core::sc_time& delay) {
  tlm::tlm_generic_payload& trans = *c.trans;
  c.trans = nullptr;
  spare_.emplace_back(&c);
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  in->nb_transport_bw(trans, phase, delay);
}

void Link::report_stats(StatsSink& out, double /*now_ns*/) const {
  if (wire_bytes_carried_ == 0 && !out.describing()) return;
  out.group(name());
  out.count("wire_bytes", wire_bytes_carried_, "B", "bytes put on the wire, headers included");
}

unsigned Link::trace_signals(sc_core::sc_trace_file* /*tf*/, const std::string& /*name*/) const {
  return 0;
}

void Link::report_energy(EnergySink& out) const {
  out.dynamic_pj(EnergyClass::kLink, cfg_.energy.dynamic_pj(wire_bytes_carried_));
  out.static_mw(EnergyClass::kLink, cfg_.energy.static_mw);
}

unsigned int Link::transport_dbg(tlm::tlm_generic_payload& trans) {
  TlmDbgCheck check(*this, trans);
  return check.result(out->transport_dbg(trans));
}

}  // namespace kb
