// One pseudo-channel of an HBM slice as its controller sees it
// (models/hbm/hbm_ctrl.h): a FIFO queue at the pseudo-channel's bandwidth
// (pe.hbm.model: queue; QueuedChannel below) or banks, rows and JEDEC timings
// (pe.hbm.model: banked; models/hbm/banked_channel.h). The controller splits
// requests at the interleave and hands each channel its chunks; how a chunk
// occupies the channel is the channel's.
#pragma once

#include <cstdint>
#include <systemc>

#include "models/common/completion.h"
#include "models/common/service_queue.h"
#include "models/common/sim_time.h"

namespace kb {

class PowerMeter;

class PseudoChannel {
 public:
  virtual ~PseudoChannel() = default;
  // Serves `bytes` at the channel's local `offset` (the interleave taken
  // out), the request arriving `delay` from now (zero for a channel that
  // takes_at_arrival()); `served->done()` once served. `order` breaks
  // same-instant ties (models/common/request_order.h); `pj` is drawn on the
  // power meter while the data moves.
  virtual void serve(const sc_core::sc_time& delay, uint64_t offset, uint64_t bytes, bool write,
                     Completion* served, uint64_t order, double pj) = 0;
  // True when the channel must be handed a request at its arrival (its
  // controller waits the annotated delay out or schedules it).
  virtual bool takes_at_arrival() const = 0;
  // True when the chunks a stream transaction brings it (models/common/
  // burst_run.h) may be served as one request of their summed bytes, which
  // is what they cost back to back; else they are served chunk by chunk.
  virtual bool sums_runs() const = 0;
  virtual void set_power_meter(PowerMeter* meter) = 0;
};

// pe.hbm.model: queue. A ServiceQueue (a child module named as the channel)
// whose requests take bytes / bandwidth each, in arrival order.
class QueuedChannel final : public PseudoChannel {
 public:
  QueuedChannel(const char* name, double bandwidth_gbps, unsigned queue_depth)
      : time_(bandwidth_gbps), queue_(name, queue_depth) {}

  void serve(const sc_core::sc_time& delay, uint64_t /*offset*/, uint64_t bytes, bool /*write*/,
             Completion* served, uint64_t order, double pj) override {
    queue_.push_after(delay, time_(bytes), bytes, served, order, pj);
  }
  bool takes_at_arrival() const override { return false; }
  bool sums_runs() const override { return true; }
  void set_power_meter(PowerMeter* meter) override { queue_.set_power_meter(meter); }
  ServiceQueue& queue() { return queue_; }
  const ServiceQueue& queue() const { return queue_; }

 private:
  TransferTime time_;
  ServiceQueue queue_;
};

}  // namespace kb
