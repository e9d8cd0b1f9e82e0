#include "models/common/service_queue.h"

#include "models/common/sim_time.h"

#include <algorithm>
#include <tuple>

namespace kb {

ServiceQueue::ServiceQueue(const sc_core::sc_module_name& name, unsigned capacity)
    : sc_core::sc_module(name), capacity_(capacity) {
  SC_HAS_PROCESS(ServiceQueue);
  SC_METHOD(serve);
  sensitive << kick_;
  dont_initialize();
}

void ServiceQueue::push(const sc_core::sc_time& service, uint64_t bytes, Completion* done,
                        uint64_t order) {
  if (done) done->expect(1);
  Request r{service, bytes, done, sc_core::sc_time_stamp(), order, next_seq_++};
  if (capacity_ > 0 && (queue_.size() >= capacity_ || !stalled_.empty())) {
    // Full. A request that got in at this same instant with a worse key gives
    // its slot to this one: same-time arrivals are admitted by key, not by
    // the order the kernel ran their senders.
    auto worst = queue_.end();
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
      if (!it->from_stall && it->arrival == r.arrival &&
          std::tie(it->order, it->seq) > std::tie(r.order, r.seq) &&
          (worst == queue_.end() ||
           std::tie(it->order, it->seq) > std::tie(worst->order, worst->seq)))
        worst = it;
    if (worst != queue_.end()) std::swap(*worst, r);
    stalled_.push_back(r);
    return;
  }
  queue_.push_back(r);
  update_depth();
  if (!busy_ && !selecting_) kick_.notify(sc_core::SC_ZERO_TIME);
}

void ServiceQueue::serve() {
  if (busy_) {  // the current request's service time has elapsed
    busy_ = false;
    ++stats_.requests;
    stats_.bytes += current_.bytes;
    stats_.busy_time += current_.service;
    if (current_.done) current_.done->done();
    // Choose the next request one delta later, once every request arriving
    // at this instant has been pushed.
    selecting_ = true;
    next_trigger(sc_core::SC_ZERO_TIME);
    return;
  }
  selecting_ = false;
  if (!queue_.empty()) {
    auto best = queue_.begin();
    for (auto it = queue_.begin(); it != queue_.end(); ++it)
      if (std::tie(it->arrival, it->order, it->seq) <
          std::tie(best->arrival, best->order, best->seq))
        best = it;
    current_ = *best;
    queue_.erase(best);
    busy_ = true;
    admit_stalled();
    update_depth();
    next_trigger(current_.service);
    return;
  }
  update_depth();
  next_trigger(kick_);
}

void ServiceQueue::admit_stalled() {
  while (!stalled_.empty() && queue_.size() < capacity_) {
    auto best = stalled_.begin();
    for (auto it = stalled_.begin(); it != stalled_.end(); ++it)
      if (std::tie(it->arrival, it->order, it->seq) <
          std::tie(best->arrival, best->order, best->seq))
        best = it;
    Request r = *best;
    stalled_.erase(best);
    r.arrival = sc_core::sc_time_stamp();
    r.from_stall = true;
    queue_.push_back(r);
  }
}

void ServiceQueue::update_depth() {
  depth_.set(depth());
}

void ServiceQueue::report_stats(StatsSink& out, double now_ns) const {
  const Stats s = stats();
  if (s.requests == 0 && !out.describing()) return;
  const double busy = to_ns(s.busy_time);
  out.group(name());
  out.count("requests", s.requests, "", "requests served");
  out.count("bytes", s.bytes, "B", "bytes the requests carried");
  out.real("busy_ns", busy, "ns", "time with a request in service");
  out.real("utilization", now_ns > 0 ? busy / now_ns : 0.0, "", "busy_ns over the simulated time");
  out.count("max_queue_depth", s.max_depth, "", "most requests queued or in service at once");
}

unsigned ServiceQueue::trace_signals(sc_core::sc_trace_file* tf, const std::string& name) const {
  sc_core::sc_trace(tf, busy_flag(), name + ".busy");
  sc_core::sc_trace(tf, depth_value(), name + ".depth");
  return 2;
}

}  // namespace kb
