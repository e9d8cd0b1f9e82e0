#include "models/memory/memory_target.h"

#include "models/common/address_map.h"
#include "models/common/request_order.h"
#include "models/common/sim_time.h"
#include "models/common/tlm_checker.h"
#include "models/memory/payload_access.h"

namespace kb {

MemoryTarget::MemoryTarget(const sc_core::sc_module_name& name, uint64_t size_bytes,
                           double bandwidth_gbps, double latency_ns)
    : sc_core::sc_module(name),
      in("in"),
      size_bytes_(size_bytes),
      bandwidth_gbps_(bandwidth_gbps),
      port_time_(bandwidth_gbps),
      latency_(ns_to_time(latency_ns)),
      port_("port") {
  in.register_b_transport(this, &MemoryTarget::b_transport);
  in.register_nb_transport_fw(this, &MemoryTarget::nb_transport_fw);
  in.register_transport_dbg(this, &MemoryTarget::transport_dbg);
}

bool MemoryTarget::admit(tlm::tlm_generic_payload& trans) const {
  if (!payload_in_region(trans, size_bytes_)) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  const tlm::tlm_response_status unsupported = unsupported_payload_status(trans);
  if (unsupported != tlm::TLM_INCOMPLETE_RESPONSE) {
    trans.set_response_status(unsupported);
    return false;
  }
  return true;
}

void MemoryTarget::queue(tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay,
                         Completion* served) {
  const uint64_t len = trans.get_data_length();
  // Queued at the time the request arrives, when the annotated delay has passed.
  port_.push_after(delay, port_time_(len), len, served, order_key(trans),
                   static_cast<double>(len) *
                       (trans.is_read() ? energy_.read_pj_per_byte : energy_.write_pj_per_byte));
}

void MemoryTarget::complete(tlm::tlm_generic_payload& trans) {
  if (data_mode_) copy_payload(trans, store_);
  if (trans.is_read())
    bytes_read_ += trans.get_data_length();
  else
    bytes_written_ += trans.get_data_length();
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

void MemoryTarget::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  TlmCheck check(*this, trans, delay);
  if (!admit(trans)) return;
  PooledCompletion served;
  queue(trans, delay, served.get());
  delay = sc_core::SC_ZERO_TIME;
  served->wait();
  delay += latency_;  // access latency after service: annotated, not waited
  complete(trans);
}

tlm::tlm_sync_enum MemoryTarget::nb_transport_fw(tlm::tlm_generic_payload& trans,
                                                 tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  if (!is_request(trans, phase) || !admit(trans)) return tlm::TLM_COMPLETED;
  queue(trans, delay, pending_.take(*this, trans)->served());
  delay = sc_core::SC_ZERO_TIME;
  return tlm::TLM_ACCEPTED;
}

void MemoryTarget::arrived(PendingAccess& access) {
  queue(*access.trans, sc_core::SC_ZERO_TIME, access.served());
}

void MemoryTarget::served(PendingAccess& access) {
  tlm::tlm_generic_payload& trans = *access.trans;
  pending_.give(&access);
  complete(trans);
  respond(in, trans, latency_);
}

void MemoryTarget::report_stats(StatsSink& out, double /*now_ns*/) const {
  if (bytes_read_ + bytes_written_ == 0 && !out.describing()) return;
  out.group(name());
  out.count("bytes_read", bytes_read_, "B", "bytes read by requests");
  out.count("bytes_written", bytes_written_, "B", "bytes written by requests");
}

unsigned MemoryTarget::trace_signals(sc_core::sc_trace_file* /*tf*/,
                                     const std::string& /*name*/) const {
  return 0;
}

void MemoryTarget::report_energy(EnergySink& out) const {
  out.dynamic_pj(energy_class_, energy_.dynamic_pj(bytes_read_, bytes_written_));
  out.static_mw(energy_class_, energy_.static_mw);
}

unsigned int MemoryTarget::transport_dbg(tlm::tlm_generic_payload& trans) {
  TlmDbgCheck check(*this, trans);
  return check.result(debug_access(trans, store_, size_bytes_));
}

}  // namespace kb
