#include "models/memory/memory_target_base.h"

#include "models/common/annotated_delay.h"
#include "models/common/calendar.h"
#include "models/common/tlm_checker.h"
#include "models/memory/payload_access.h"

namespace kb {

MemoryTargetBase::MemoryTargetBase(const sc_core::sc_module_name& name, uint64_t size_bytes,
                                   sc_core::sc_time latency, const MemoryEnergyConfig& energy,
                                   EnergyClass c)
    : sc_core::sc_module(name),
      in("in"),
      size_bytes_(size_bytes),
      latency_(latency),
      energy_(energy),
      energy_class_(c) {
  in.register_b_transport(this, &MemoryTargetBase::b_transport);
  in.register_nb_transport_fw(this, &MemoryTargetBase::nb_transport_fw);
  in.register_transport_dbg(this, &MemoryTargetBase::transport_dbg);
}

bool MemoryTargetBase::admit(tlm::tlm_generic_payload& trans) const {
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

void MemoryTargetBase::complete(tlm::tlm_generic_payload& trans) {
  if (data_mode_) copy_payload(trans, store_);
  if (trans.is_read())
    bytes_read_ += trans.get_data_length();
  else
    bytes_written_ += trans.get_data_length();
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

void MemoryTargetBase::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  TlmCheck check(*this, trans, delay);
  if (!admit(trans)) return;
  if (queues_at_arrival()) sync_delay(delay);
  PooledCompletion served;
  queue(trans, delay, served.get());
  delay = sc_core::SC_ZERO_TIME;
  served->wait();
  delay += latency_;  // access latency after service: annotated, not waited
  complete(trans);
}

tlm::tlm_sync_enum MemoryTargetBase::nb_transport_fw(tlm::tlm_generic_payload& trans,
                                                     tlm::tlm_phase& phase,
                                                     sc_core::sc_time& delay) {
  if (!is_request(trans, phase) || !admit(trans)) return tlm::TLM_COMPLETED;
  PendingAccess* a = pending_.take(*this, trans);
  // What b_transport does before it waits: a target that queues at arrival
  // takes the request when the annotated delay has passed (arrived()).
  if (queues_at_arrival() && delay != sc_core::SC_ZERO_TIME)
    Calendar::get().call_in(*a, delay);
  else
    queue(trans, delay, a->served());
  delay = sc_core::SC_ZERO_TIME;
  return tlm::TLM_ACCEPTED;
}

void MemoryTargetBase::arrived(PendingAccess& access) {
  queue(*access.trans, sc_core::SC_ZERO_TIME, access.served());
}

void MemoryTargetBase::served(PendingAccess& access) {
  tlm::tlm_generic_payload& trans = *access.trans;
  pending_.give(&access);
  complete(trans);
  respond(in, trans, latency_);
}

void MemoryTargetBase::report_stats(StatsSink& out, double /*now_ns*/) const {
  if (bytes_read_ + bytes_written_ == 0 && !out.describing()) return;
  out.group(name());
  out.count("bytes_read", bytes_read_, "B", "bytes read by requests");
  out.count("bytes_written", bytes_written_, "B", "bytes written by requests");
}

unsigned MemoryTargetBase::trace_signals(sc_core::sc_trace_file* /*tf*/,
                                         const std::string& /*name*/) const {
  return 0;
}

void MemoryTargetBase::report_energy(EnergySink& out) const {
  out.dynamic_pj(energy_class_, energy_.dynamic_pj(bytes_read_, bytes_written_));
  out.static_mw(energy_class_, energy_.static_mw);
}

unsigned int MemoryTargetBase::transport_dbg(tlm::tlm_generic_payload& trans) {
  TlmDbgCheck check(*this, trans);
  return check.result(debug_access(trans, store_, size_bytes_));
}

}  // namespace kb
