// A memory region behind one serial port: a PE's TCM (its DMA port), a cube's
// shared SRAM, the host memory. Each access occupies the port for
// bytes / bandwidth in FIFO order, then pays latency_ns (pipelined). The
// transports, checks, data and counters are MemoryTargetBase's.
#pragma once

#include <cstdint>
#include <systemc>
#include <tlm>

#include "models/common/energy.h"
#include "models/common/service_queue.h"
#include "models/common/sim_time.h"
#include "models/memory/memory_target_base.h"

namespace kb {

class MemoryTarget : public MemoryTargetBase {
 public:
  MemoryTarget(const sc_core::sc_module_name& name, uint64_t size_bytes, double bandwidth_gbps,
               double latency_ns);

  double bandwidth_gbps() const { return bandwidth_gbps_; }
  ServiceQueue& port() { return port_; }
  const ServiceQueue& port() const { return port_; }
  // What this memory's accesses cost and which class they count in (the
  // owner sets it: TCM, cube SRAM, host memory; default none).
  using MemoryTargetBase::set_energy;

  // Draws the port's service energy on `meter` (power over time).
  void set_power_meter(PowerMeter* meter) { port_.set_power_meter(meter); }

 private:
  // Queues the request on the port, arriving `delay` from now.
  void queue(tlm::tlm_generic_payload& trans, const sc_core::sc_time& delay,
             Completion* served) override;

  double bandwidth_gbps_;
  TransferTime port_time_;
  ServiceQueue port_;
};

}  // namespace kb
