#include "models/router/router.h"
#include "models/common/burst_run.h"

#include "models/common/hop_stack.h"
#include "models/common/sim_time.h"
#include "models/common/tlm_checker.h"

namespace kb {

Router::Router(const sc_core::sc_module_name& name, const AddressMap& map, double latency_ns)
    : sc_core::sc_module(name), in("in"), out("out"), map_(map), latency_(ns_to_time(latency_ns)) {
  in.register_b_transport(this, &Router::b_transport);
  in.register_nb_transport_fw(this, &Router::nb_transport_fw);
  out.register_nb_transport_bw(this, &Router::nb_transport_bw);
  in.register_transport_dbg(this, &Router::transport_dbg);
}

unsigned Router::add_port(PortTarget target) {
  ports_.push_back(std::move(target));
  return static_cast<unsigned>(ports_.size() - 1);
}

void Router::b_transport(int, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  TlmCheck check(*this, trans, delay);
  auto dest = map_.resolve(trans.get_address(), address_span(trans), nullptr);
  if (!dest) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  ++transactions_;
  bytes_ += trans.get_data_length();
  const unsigned port = route_(*dest);
  // The hop's latency each way is annotated, not waited (annotated_delay.h).
  delay += latency_;
  out[static_cast<int>(port)]->b_transport(trans, delay);
  delay += latency_;
}

tlm::tlm_sync_enum Router::nb_transport_fw(int in_port, tlm::tlm_generic_payload& trans,
                                           tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  HopStack* hops = HopStack::of(trans);
  auto dest = map_.resolve(trans.get_address(), address_span(trans), nullptr);
  if (phase != tlm::BEGIN_REQ || !hops || !dest) {
    trans.set_response_status(dest ? tlm::TLM_GENERIC_ERROR_RESPONSE
                                   : tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  ++transactions_;
  bytes_ += trans.get_data_length();
  delay += latency_;
  hops->push({in_port, nullptr});
  const tlm::tlm_sync_enum r =
      out[static_cast<int>(route_(*dest))]->nb_transport_fw(trans, phase, delay);
  if (r == tlm::TLM_COMPLETED) {  // refused at once: back as b_transport returns
    hops->pop();
    delay += latency_;
  }
  return r;
}

tlm::tlm_sync_enum Router::nb_transport_bw(int, tlm::tlm_generic_payload& trans,
                                           tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  delay += latency_;
  const int in_port = HopStack::of(trans)->pop().port;
  return in[in_port]->nb_transport_bw(trans, phase, delay);
}

unsigned int Router::transport_dbg(int, tlm::tlm_generic_payload& trans) {
  TlmDbgCheck check(*this, trans);
  auto dest = map_.resolve(trans.get_address(), address_span(trans), nullptr);
  if (!dest) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  return check.result(out[static_cast<int>(route_(*dest))]->transport_dbg(trans));
}

void Router::report_stats(StatsSink& out, double /*now_ns*/) const {
  if (transactions_ == 0 && !out.describing()) return;
  out.group(name());
  out.count("transactions", transactions_, "", "transactions routed");
  out.count("bytes", bytes_, "B", "data bytes of the transactions routed");
}

void Router::report_energy(EnergySink& out) const {
  out.dynamic_pj(EnergyClass::kRouter, energy_.dynamic_pj(bytes_));
  out.static_mw(EnergyClass::kRouter, energy_.static_mw);
}

unsigned Router::trace_signals(sc_core::sc_trace_file* /*tf*/, const std::string& /*name*/) const {
  return 0;
}

}  // namespace kb
