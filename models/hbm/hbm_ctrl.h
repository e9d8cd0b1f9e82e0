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
// The transports, checks, data and counters are MemoryTargetBase's.
#pragma once

#include <algorithm>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/common/service_queue.h"
#include "models/common/sim_time.h"
#include "models/hbm/banked_channel.h"
#include "models/hbm/hbm_config.h"
#include "models/hbm/pseudo_channel.h"
#include "models/memory/memory_target_base.h"

namespace kb {

class HbmCtrl : public MemoryTargetBase {
 public:
  HbmCtrl(const sc_core::sc_module_name& name, const HbmConfig& cfg);

  unsigned pc_of(uint64_t offset) const;
  const HbmConfig& config() const { return cfg_; }
  unsigned num_pcs() const { return cfg_.num_pcs; }
  // Pseudo-channel i (a QueuedChannel or a BankedChannel, by pe.hbm.model).
  PseudoChannel& channel(unsigned i) { return *pcs_.at(i); }
  // The queue model's pseudo-channel i; throws std::logic_error under the
  // banked model.
  const ServiceQueue& pc(unsigned i) const;
  // An offset's place within its pseudo-channel (the interleave taken out).
  uint64_t pc_local_offset(uint64_t offset) const;
  // Draws each pseudo-channel's service energy on `meter` (power over time).
  void set_power_meter(PowerMeter* meter) {
    for (auto& pc : pcs_) pc->set_power_meter(meter);
  }

 private:
  // Hands the request's chunks to their pseudo-channels, arriving `delay`
  // from now (zero when the channels take them at arrival).
  void queue(tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay,
             Completion* served) override;
  bool queues_at_arrival() const override { return pcs_.front()->takes_at_arrival(); }
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

  HbmConfig cfg_;
  std::vector<std::unique_ptr<PseudoChannel>> pcs_;
  // A stream transaction's bytes per pseudo-channel, and its first chunk's
  // local offset there (channels that sum runs).
  std::vector<uint64_t> pc_bytes_, pc_offset_;
};

}  // namespace kb
