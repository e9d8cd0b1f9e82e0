#include "models/hbm/hbm_ctrl.h"

#include <algorithm>
#include <string>

#include "models/common/address_map.h"
#include "models/common/annotated_delay.h"
#include "models/common/burst_run.h"
#include "models/common/energy.h"
#include "models/common/request_order.h"
#include "models/common/sim_time.h"
#include "models/common/tlm_checker.h"
#include "models/hbm/pc_mapping.h"
#include "models/memory/payload_access.h"

namespace kb {

HbmCtrl::HbmCtrl(const sc_core::sc_module_name& name, const HbmConfig& cfg)
    : sc_core::sc_module(name),
      in("in"),
      cfg_(cfg),
      pc_time_(cfg.pc_bandwidth_gbps),
      access_latency_(ns_to_time(cfg.access_latency_ns)) {
  for (unsigned i = 0; i < cfg_.num_pcs; ++i) {
    const std::string pc = "pc" + std::to_string(i);
    if (cfg_.model == HbmModel::kBanked)
      banked_.push_back(std::make_unique<BankedChannel>(
          pc.c_str(), cfg_.banked, cfg_.banked.lockstep(cfg_.pc_bandwidth_gbps), cfg_.queue_depth));
    else
      pcs_.push_back(std::make_unique<ServiceQueue>(pc.c_str(), cfg_.queue_depth));
  }
  pc_bytes_.resize(cfg_.num_pcs);
  in.register_b_transport(this, &HbmCtrl::b_transport);
  in.register_nb_transport_fw(this, &HbmCtrl::nb_transport_fw);
  in.register_transport_dbg(this, &HbmCtrl::transport_dbg);
}

unsigned HbmCtrl::pc_of(uint64_t offset) const {
  return pc_of_offset(cfg_, offset);
}

uint64_t HbmCtrl::pc_local_offset(uint64_t offset) const {
  // Each run of num_pcs chunks puts exactly one chunk on every PC (both
  // mappings), so a chunk's index within its PC is its run.
  return offset / cfg_.interleave_bytes / cfg_.num_pcs * cfg_.interleave_bytes +
         offset % cfg_.interleave_bytes;
}

bool HbmCtrl::admit(tlm::tlm_generic_payload& trans) const {
  if (!payload_in_region(trans, cfg_.size_bytes)) {
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

void HbmCtrl::queue_chunks(tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay,
                           Completion* served) {
  const double pj_per_byte =
      trans.is_read() ? cfg_.energy.read_pj_per_byte : cfg_.energy.write_pj_per_byte;
  const BurstRun* run = BurstRun::of(trans);
  if (run && banked_.empty()) {
    // A stream transaction on the queue model: each pseudo-channel is
    // pushed once with every byte its bursts' chunks would have brought it,
    // in channel order.
    std::fill(pc_bytes_.begin(), pc_bytes_.end(), 0);
    run->for_each_piece([&](uint64_t addr, uint64_t len) {
      for_each_chunk(addr & addr_bits::kOffsetMask, len,
                     [&](uint64_t pos, uint64_t bytes) { pc_bytes_[pc_of(pos)] += bytes; });
    });
    for (unsigned i = 0; i < cfg_.num_pcs; ++i)
      if (pc_bytes_[i])
        pcs_[i]->push_after(delay, pc_time_(pc_bytes_[i]), pc_bytes_[i], served, order_key(trans),
                            static_cast<double>(pc_bytes_[i]) * pj_per_byte);
    return;
  }
  auto push = [&](uint64_t pos, uint64_t bytes) {
    const double pj = static_cast<double>(bytes) * pj_per_byte;
    if (banked_.empty())
      pcs_[pc_of(pos)]->push_after(delay, pc_time_(bytes), bytes, served, order_key(trans), pj);
    else
      banked_[pc_of(pos)]->push(pc_local_offset(pos), bytes, trans.is_write(), served,
                                order_key(trans), pj);
  };
  if (run)  // the banked model takes a stream's chunks one by one, as its bursts'
    run->for_each_piece([&](uint64_t addr, uint64_t len) {
      for_each_chunk(addr & addr_bits::kOffsetMask, len, push);
    });
  else
    for_each_chunk(trans.get_address() & addr_bits::kOffsetMask, trans.get_data_length(), push);
}

void HbmCtrl::complete(tlm::tlm_generic_payload& trans) {
  if (data_mode_) copy_payload(trans, store_);
  if (trans.is_read())
    bytes_read_ += trans.get_data_length();
  else
    bytes_written_ += trans.get_data_length();
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

void HbmCtrl::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  TlmCheck check(*this, trans, delay);
  if (!admit(trans)) return;
  // Queued at the time the request arrives, when the annotated delay has
  // passed: the queue model takes the chunks then; the banked model's
  // controller is reached by waiting it out.
  if (!banked_.empty()) sync_delay(delay);
  PooledCompletion served;
  queue_chunks(trans, delay, served.get());
  delay = sc_core::SC_ZERO_TIME;
  served->wait();
  delay += access_latency_;  // access latency after service: annotated, not waited
  complete(trans);
}

tlm::tlm_sync_enum HbmCtrl::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                            sc_core::sc_time& delay) {
  if (!is_request(trans, phase) || !admit(trans)) return tlm::TLM_COMPLETED;
  PendingAccess* a = pending_.take(*this, trans);
  // What b_transport does before it waits: the banked model's controller
  // takes the request when the annotated delay has passed (arrived()).
  if (!banked_.empty() && delay != sc_core::SC_ZERO_TIME)
    Calendar::get().call_in(*a, delay);
  else
    queue_chunks(trans, delay, a->served());
  delay = sc_core::SC_ZERO_TIME;
  return tlm::TLM_ACCEPTED;
}

void HbmCtrl::arrived(PendingAccess& access) {
  queue_chunks(*access.trans, sc_core::SC_ZERO_TIME, access.served());
}

void HbmCtrl::served(PendingAccess& access) {
  tlm::tlm_generic_payload& trans = *access.trans;
  pending_.give(&access);
  complete(trans);
  respond(in, trans, access_latency_);
}

void HbmCtrl::report_stats(StatsSink& out, double /*now_ns*/) const {
  if (bytes_read_ + bytes_written_ == 0 && !out.describing()) return;
  out.group(name());
  out.count("bytes_read", bytes_read_, "B", "bytes read by requests");
  out.count("bytes_written", bytes_written_, "B", "bytes written by requests");
}

unsigned HbmCtrl::trace_signals(sc_core::sc_trace_file* /*tf*/, const std::string& /*name*/) const {
  return 0;
}

void HbmCtrl::report_energy(EnergySink& out) const {
  out.dynamic_pj(EnergyClass::kHbm, cfg_.energy.dynamic_pj(bytes_read_, bytes_written_));
  out.static_mw(EnergyClass::kHbm, cfg_.energy.static_mw);
}

unsigned int HbmCtrl::transport_dbg(tlm::tlm_generic_payload& trans) {
  TlmDbgCheck check(*this, trans);
  return check.result(debug_access(trans, store_, cfg_.size_bytes));
}

}  // namespace kb
