// The HBM controller of one PE's HBM slice.
//
// Addresses are spread over pseudo-channels (PCs) in chunks of
// interleave_bytes (models/hbm/pc_mapping.h).
// Each PC is a FIFO ServiceQueue: a request occupies its PC for
// bytes / pc_bandwidth, requests to one PC are served strictly in arrival
// order, and different PCs work in parallel. After its PC service a request
// pays access_latency_ns (pipelined: it does not occupy the PC). A request
// that spans an interleave boundary is split across the PCs it touches and
// completes when every part has been served. With queue_depth > 0 a part
// that finds its PC queue full stalls at the queue's input until a slot frees
// (stalled parts are admitted oldest first, see ServiceQueue); the requester
// sees the back-pressure as a later completion, and the request's other parts
// go on to their own PCs meanwhile.
//
// With pe.hbm.model: banked each PC is instead a BankedChannel (banks, rows,
// JEDEC timings, FR-FCFS; models/hbm/banked_channel.h) fed the request's
// offset within the PC; access_latency_ns is then the controller and PHY
// pipeline on top of the device's own latencies.
//
// A stream transaction (models/common/burst_run.h) is priced as its bursts'
// chunks: with the queue model each PC is pushed once with the sum of its
// chunks' bytes (served back to back, as the bursts' chunks would be when
// nothing else arrives between them); the banked model takes the chunks one
// by one.
//
// Besides b_transport, the controller takes nb_transport_fw(BEGIN_REQ) and
// answers with nb_transport_bw(BEGIN_RESP) once served, with the same timing
// (models/memory/pending_access.h).
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <algorithm>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/service_queue.h"
#include "models/common/sim_time.h"
#include "models/hbm/banked_channel.h"
#include "models/hbm/hbm_config.h"
#include "models/memory/backing_store.h"
#include "models/memory/pending_access.h"

namespace kb {

class HbmCtrl : public sc_core::sc_module, public Instrumented, private AsyncTarget {
 public:
  tlm_utils::simple_target_socket<HbmCtrl> in;

  HbmCtrl(const sc_core::sc_module_name& name, const HbmConfig& cfg);

  unsigned pc_of(uint64_t offset) const;
  const HbmConfig& config() const { return cfg_; }
  unsigned num_pcs() const { return cfg_.num_pcs; }
  // The pseudo-channels of the queue model (pe.hbm.model: queue)...
  ServiceQueue& pc(unsigned i) { return *pcs_.at(i); }
  const ServiceQueue& pc(unsigned i) const { return *pcs_.at(i); }
  // ... or of the banked model (pe.hbm.model: banked); the other list is empty.
  BankedChannel& banked_pc(unsigned i) { return *banked_.at(i); }
  const BankedChannel& banked_pc(unsigned i) const { return *banked_.at(i); }
  // An offset's place within its pseudo-channel (the interleave taken out).
  uint64_t pc_local_offset(uint64_t offset) const;
  // Data mode: b_transport moves real bytes; transport_dbg always does.
  void set_data_mode(bool on) { data_mode_ = on; }
  BackingStore& store() { return store_; }
  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t bytes_written() const { return bytes_written_; }
  // Draws each pseudo-channel's service energy on `meter` (power over time).
  void set_power_meter(PowerMeter* meter) {
    for (auto& pc : pcs_) pc->set_power_meter(meter);
    for (auto& pc : banked_) pc->set_power_meter(meter);
  }

  // Instrumented: bytes read and written (the PCs report their own queues);
  // energy per byte read and written, static power (HbmConfig::energy).
  void report_stats(StatsSink& out, double now_ns) const override;
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;
  void report_energy(EnergySink& out) const override;

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  // The checks of a request: false (its response status set) when refused.
  bool admit(tlm::tlm_generic_payload& trans) const;
  // Queues the request's chunks on their pseudo-channels, arriving `delay`
  // from now (the queue model; the banked model takes them now).
  void queue_chunks(tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay,
                    Completion* served);
  // f(offset, bytes) for each interleave chunk of [offset, offset + len).
  template <class F>
  void for_each_chunk(uint64_t offset, uint64_t len, F&& f) const {
    const uint64_t end = offset + len;
    for (uint64_t pos = offset; pos < end;) {
      const uint64_t chunk_end =
          std::min(end, (pos / cfg_.interleave_bytes + 1) * cfg_.interleave_bytes);
      f(pos, chunk_end - pos);
      pos = chunk_end;
    }
  }
  // The request has been served: data, counters, response status.
  void complete(tlm::tlm_generic_payload& trans);
  // AsyncTarget.
  void arrived(PendingAccess& access) override;
  void served(PendingAccess& access) override;

  HbmConfig cfg_;
  TransferTime pc_time_;  // a pseudo-channel's, unbanked
  sc_core::sc_time access_latency_;
  std::vector<std::unique_ptr<ServiceQueue>> pcs_;
  std::vector<std::unique_ptr<BankedChannel>> banked_;
  BackingStore store_;
  bool data_mode_ = false;
  uint64_t bytes_read_ = 0;
  uint64_t bytes_written_ = 0;
  PendingAccessPool pending_;
  std::vector<uint64_t> pc_bytes_;  // a stream transaction's bytes per pseudo-channel
};

}  // namespace kb
