// A serial resource with a FIFO request queue: one link direction, one HBM
// pseudo-channel, one memory port. Requests are served in arrival order, one
// at a time; each occupies the server for its service time. The queue has no
// process of its own: it picks its next request one delta after a kick
// (Calendar::call_next_delta), and arrivals handed over ahead of time and
// ends of service are the calendar's timers (Calendar::call_in).
//
// Requests that arrive at the same simulated time are served in the order of
// their `order` key (then of their push), not in the order the kernel happened
// to wake their senders: the kernel's wake order for equal times depends on
// every other pending event, so without this a PE's timing would shift with
// unrelated activity elsewhere. The server picks its next request one delta
// after it becomes free, so every same-time arrival is in the queue by then;
// when the head of the queue arrived at an earlier instant, nothing arriving
// now can precede it, and it starts at once.
//
// A requester pushes a request and then waits on its Completion. A bounded
// queue (capacity > 0) holds at most `capacity` requests waiting for service;
// a request that finds it full stalls at the queue's input (not counted in
// depth) and is admitted when a slot frees, so back-pressure reaches the
// initiator as a later completion. Stalled requests are admitted one per freed
// slot in the same canonical order as service (arrival, order, push), and among
// requests arriving at the same instant the slots go to the best keys, however
// the kernel happened to order their pushes. A request admitted from the stall
// arrives (for service order) when it is admitted. push() never blocks.
#pragma once

#include <cstdint>
#include <systemc>
#include <utility>
#include <vector>

#include "models/common/calendar.h"
#include "models/common/completion.h"
#include "models/common/instrumented.h"
#include "models/common/ring_queue.h"
#include "models/common/settled_peak.h"

namespace kb {

class PowerMeter;

// A queue's depth over time for the trace's counter tracks: a sample
// (picoseconds, depth) where the depth settles on a new value.
struct DepthTrack {
  std::vector<std::pair<int64_t, unsigned>> samples;
  void sample(int64_t ps, unsigned depth);
  // The share of each bin of `bin_ps` picoseconds, from 0 to `end_ps`, in
  // which the queue was busy (a request queued or in service: depth > 0), as
  // (bin start, share) at the first bin and wherever the share changes.
  std::vector<std::pair<int64_t, double>> busy_share(int64_t end_ps, int64_t bin_ps) const;
};

class ServiceQueue : public sc_core::sc_module, public Instrumented {
 public:
  ServiceQueue(const sc_core::sc_module_name& name, unsigned capacity = 0);

  // Enqueue `service` worth of occupancy; `done->done()` is called when it has
  // been served. `pj`: the energy the service spends, drawn as power while
  // it is served when a PowerMeter is attached (it changes no timing).
  void push(const sc_core::sc_time& service, uint64_t bytes, Completion* done, uint64_t order = 0,
            double pj = 0);
  // The same request arriving `after` from now: what waiting out `after` in
  // the requester and then calling push() gives, to the picosecond and the
  // delta (the queue takes it in the timed phase of its arrival instant), but
  // without suspending the requester twice. A requester that only waits for
  // its completion next calls this instead of sync_delay() + push().
  void push_after(const sc_core::sc_time& after, const sc_core::sc_time& service, uint64_t bytes,
                  Completion* done, uint64_t order = 0, double pj = 0);
  void set_power_meter(PowerMeter* meter) { meter_ = meter; }
  // Records every change of depth() into `track` (it changes no timing).
  void set_depth_track(DepthTrack* track) { track_ = track; }

  // Observability (also traced into the VCD).
  bool busy() const { return busy_; }
  unsigned depth() const { return static_cast<unsigned>(queue_.size()) + (busy_ ? 1u : 0u); }
  const bool& busy_flag() const { return busy_; }
  const unsigned& depth_value() const { return depth_.traced(); }

  struct Stats {
    uint64_t requests = 0;
    uint64_t bytes = 0;
    sc_core::sc_time busy_time = sc_core::SC_ZERO_TIME;
    // Most requests queued or in service at once, each counted over
    // [arrival, end of service) (SettledPeak). Filled in by stats().
    unsigned max_depth = 0;
  };
  Stats stats() const {
    Stats s = stats_;
    s.max_depth = depth_.peak();
    return s;
  }

  // Instrumented: the Stats above; busy and depth.
  void report_stats(StatsSink& out, double now_ns) const override;
  unsigned trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const override;

 private:
  struct Request {
    sc_core::sc_time service;
    uint64_t bytes;
    Completion* done;
    sc_core::sc_time arrival;
    uint64_t order;
    uint64_t seq;
    bool from_stall = false;  // admitted from the stall: keeps its slot
    double pj = 0;
  };
  void serve();
  void arrive();
  void end_service();
  void start_next();
  void enqueue(Request r);
  void admit_stalled();
  static void insert_sorted(RingQueue<Request>& q, const Request& r);
  void update_depth();

  unsigned capacity_;
  RingQueue<Request> queue_;
  RingQueue<Request> stalled_;  // arrived at a full bounded queue; `arrival` = attempt
  // Requests pushed ahead of their arrival (push_after): a min-heap on
  // (arrival, call sequence), taken in by arrive() when their instant comes.
  struct Future {
    sc_core::sc_time at;
    uint64_t call;
    Request r;
  };
  struct LaterFirst {
    bool operator()(const Future& a, const Future& b) const {
      return a.at != b.at ? a.at > b.at : a.call > b.call;
    }
  };
  std::vector<Future> future_;
  uint64_t next_call_ = 0;
  // The calendar's timers: arrive() when a request handed over ahead of time
  // arrives, end_service() when the current request's service time has
  // elapsed, serve() one delta after a kick.
  template <void (ServiceQueue::*Fn)()>
  struct Call final : Calendar::Timer {
    explicit Call(ServiceQueue* q) : queue(q) {}
    void on_time() override { (queue->*Fn)(); }
    ServiceQueue* queue;
  };
  Call<&ServiceQueue::arrive> arrival_{this};
  sc_core::sc_time arrival_armed_ = sc_core::sc_max_time();  // the calendar runs arrive() then
  Call<&ServiceQueue::end_service> served_{this};
  DeltaKick<ServiceQueue, &ServiceQueue::serve> kick_{this};
  Calendar& calendar_;
  Request current_{};
  bool busy_ = false;
  bool selecting_ = false;
  uint64_t next_seq_ = 0;
  SettledPeak depth_;
  Stats stats_;
  PowerMeter* meter_ = nullptr;
  int64_t power_token_ = 0;
  DepthTrack* track_ = nullptr;
};

}  // namespace kb
