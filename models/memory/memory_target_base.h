// What every memory target of the fabric shares (docs/ARCHITECTURE.md §1.3):
// the TLM socket and its transports, the address and payload checks, the
// data-mode copy and debug access through a BackingStore, the bytes read and
// written and their energy. A target says only how a request occupies its
// resources (queue(): a port, pseudo-channels); after that service the
// request pays `latency` (pipelined: annotated, not waited). Takes
// b_transport, and nb_transport_fw answered by nb_transport_bw with the same
// timing (models/memory/pending_access.h).
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>

#include "models/common/completion.h"
#include "models/common/energy.h"
#include "models/common/instrumented.h"
#include "models/memory/backing_store.h"
#include "models/memory/pending_access.h"

namespace kb {

class MemoryTargetBase : public sc_core::sc_module, public Instrumented, private AsyncTarget {
 public:
  tlm_utils::simple_target_socket<MemoryTargetBase> in;

  uint64_t size_bytes() const { return size_bytes_; }
  // Data mode: b_transport moves real bytes; transport_dbg always does.
  void set_data_mode(bool on) { data_mode_ = on; }
  BackingStore& store() { return store_; }
  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t bytes_written() const { return bytes_written_; }

  // Instrumented: bytes read and written (what serves the requests reports
  // its own queues); energy per byte read and written, static power.
  void report_stats(StatsSink& out, double now_ns) const override;
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;
  void report_energy(EnergySink& out) const override;

 protected:
  MemoryTargetBase(const sc_core::sc_module_name& name, uint64_t size_bytes,
                   sc_core::sc_time latency, const MemoryEnergyConfig& energy, EnergyClass c);

  // What this memory's accesses cost and which class they count in.
  void set_energy(const MemoryEnergyConfig& energy, EnergyClass c) {
    energy_ = energy;
    energy_class_ = c;
  }
  // The request's energy per byte (read or write).
  double pj_per_byte(const tlm::tlm_generic_payload& trans) const {
    return trans.is_read() ? energy_.read_pj_per_byte : energy_.write_pj_per_byte;
  }

  // Puts an admitted request on what serves it, arriving `delay` from now;
  // `served` completes when its last part has been served.
  virtual void queue(tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay,
                     Completion* served) = 0;
  // True when queue() must be called at the request's arrival (its delay
  // waited out or scheduled), not ahead of it with the delay.
  virtual bool queues_at_arrival() const { return false; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  // The checks of a request: false (its response status set) when refused.
  bool admit(tlm::tlm_generic_payload& trans) const;
  // The request has been served: data, counters, response status.
  void complete(tlm::tlm_generic_payload& trans);
  // AsyncTarget.
  void arrived(PendingAccess& access) override;
  void served(PendingAccess& access) override;

  uint64_t size_bytes_;
  sc_core::sc_time latency_;
  MemoryEnergyConfig energy_;
  EnergyClass energy_class_;
  BackingStore store_;
  bool data_mode_ = false;
  uint64_t bytes_read_ = 0;
  uint64_t bytes_written_ = 0;
  PendingAccessPool pending_;
};

}  // namespace kb
