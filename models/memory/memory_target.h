// A memory region behind one serial port: a PE's TCM (its DMA port), a cube's
// shared SRAM, the host memory. Each access occupies the port for
// bytes / bandwidth in FIFO order, then pays latency_ns (pipelined). Takes
// b_transport, and nb_transport_fw answered by nb_transport_bw with the same
// timing (models/memory/pending_access.h).
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <cstdint>
#include <systemc>
#include <tlm>

#include "models/common/energy.h"
#include "models/common/service_queue.h"
#include "models/common/sim_time.h"
#include "models/memory/backing_store.h"
#include "models/memory/pending_access.h"

namespace kb {

class MemoryTarget : public sc_core::sc_module, public Instrumented, private AsyncTarget {
 public:
  tlm_utils::simple_target_socket<MemoryTarget> in;

  MemoryTarget(const sc_core::sc_module_name& name, uint64_t size_bytes, double bandwidth_gbps,
               double latency_ns);

  uint64_t size_bytes() const { return size_bytes_; }
  double bandwidth_gbps() const { return bandwidth_gbps_; }
  ServiceQueue& port() { return port_; }
  const ServiceQueue& port() const { return port_; }
  // Data mode: b_transport moves real bytes; transport_dbg always does.
  void set_data_mode(bool on) { data_mode_ = on; }
  BackingStore& store() { return store_; }
  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t bytes_written() const { return bytes_written_; }
  // What this memory's accesses cost and which class they count in (the
  // owner sets it: TCM, cube SRAM, host memory; default none).
  void set_energy(const MemoryEnergyConfig& energy, EnergyClass c) {
    energy_ = energy;
    energy_class_ = c;
  }

  // Draws the port's service energy on `meter` (power over time).
  void set_power_meter(PowerMeter* meter) { port_.set_power_meter(meter); }

  // Instrumented: bytes read and written (the port reports its queue);
  // energy per byte read and written, static power.
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
  // Queues the request on the port, arriving `delay` from now.
  void queue(tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay, Completion* served);
  // The request has been served: data, counters, response status.
  void complete(tlm::tlm_generic_payload& trans);
  // AsyncTarget (arrived() is never called: the port takes the delay).
  void arrived(PendingAccess& access) override;
  void served(PendingAccess& access) override;

  uint64_t size_bytes_;
  double bandwidth_gbps_;
  TransferTime port_time_;
  sc_core::sc_time latency_;
  ServiceQueue port_;
  BackingStore store_;
  bool data_mode_ = false;
  uint64_t bytes_read_ = 0;
  uint64_t bytes_written_ = 0;
  MemoryEnergyConfig energy_;
  EnergyClass energy_class_ = EnergyClass::kSram;
  PendingAccessPool pending_;
};

}  // namespace kb
