#include "models/common/service_queue.h"

#include "models/common/power_meter.h"
#include "models/common/service_order.h"
#include "models/common/sim_time.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <tuple>

namespace kb {

ServiceQueue::ServiceQueue(const sc_core::sc_module_name& name, unsigned capacity)
    : sc_core::sc_module(name), capacity_(capacity), calendar_(Calendar::get()) {}

void ServiceQueue::push(const sc_core::sc_time& service, uint64_t bytes, Completion* done,
                        uint64_t order, double pj) {
  if (done) done->expect(1);
  Request r{service, bytes, done, sim_now(), order, 0};
  r.pj = pj;
  enqueue(r);
}

void ServiceQueue::push_after(const sc_core::sc_time& after, const sc_core::sc_time& service,
                              uint64_t bytes, Completion* done, uint64_t order, double pj) {
  if (after == sc_core::SC_ZERO_TIME) {
    push(service, bytes, done, order, pj);
    return;
  }
  if (done) done->expect(1);
  Request r{service, bytes, done, sc_core::SC_ZERO_TIME, order, 0};
  r.pj = pj;
  const sc_core::sc_time at = sim_now() + after;
  future_.push_back({at, next_call_++, r});
  std::push_heap(future_.begin(), future_.end(), LaterFirst{});
  if (at < arrival_armed_) {  // a later wake-up still pending finds nothing due
    arrival_armed_ = at;
    calendar_.call_in(arrival_, after);
  }
}

// Runs in the timed phase of an arrival instant (the calendar's timer), where
// a requester woken from waiting out its delay would have pushed.
void ServiceQueue::arrive() {
  const sc_core::sc_time& now = sim_now();
  static const sc_core::sc_time& never = sc_core::sc_max_time();
  if (arrival_armed_ <= now) arrival_armed_ = never;
  while (!future_.empty() && future_.front().at <= now) {
    std::pop_heap(future_.begin(), future_.end(), LaterFirst{});
    Request r = future_.back().r;
    future_.pop_back();
    r.arrival = now;
    enqueue(r);
  }
  if (!future_.empty() && future_.front().at < arrival_armed_) {
    arrival_armed_ = future_.front().at;
    calendar_.call_in(arrival_, arrival_armed_ - now);
  }
}

void ServiceQueue::enqueue(Request r) {
  r.seq = next_seq_++;
  if (capacity_ > 0 && (queue_.size() >= capacity_ || !stalled_.empty())) {
    // Full. A request that got in at this same instant with a worse key gives
    // its slot to this one: same-time arrivals are admitted by key, not by
    // the order the kernel ran their senders. They are the queue's tail.
    auto worst = queue_.end();
    for (auto it = queue_.end(); it != queue_.begin();) {
      --it;
      if (it->arrival != r.arrival) break;
      if (!it->from_stall && std::tie(it->order, it->seq) > std::tie(r.order, r.seq) &&
          (worst == queue_.end() ||
           std::tie(it->order, it->seq) > std::tie(worst->order, worst->seq)))
        worst = it;
    }
    if (worst != queue_.end()) {
      Request better = r;
      r = *worst;
      queue_.erase(worst);
      insert_sorted(queue_, better);
    }
    insert_sorted(stalled_, r);
    return;
  }
  insert_sorted(queue_, r);
  update_depth();
  if (!busy_ && !selecting_) kick_.kick();
}

void ServiceQueue::insert_sorted(RingQueue<Request>& q, const Request& r) {
  insert_in_service_order(q, r);
}

// The end of the current request's service: in the timed phase of its
// instant (the calendar's timer), or one delta after a zero-time service
// began (serve()).
void ServiceQueue::end_service() {
  busy_ = false;
  if (meter_) meter_->end(power_token_);
  ++stats_.requests;
  stats_.bytes += current_.bytes;
  stats_.busy_time += current_.service;
  if (current_.done) current_.done->done();
  if (queue_.empty()) {  // idle: the next push kicks, and picks one delta after it
    update_depth();
    return;
  }
  // A head that arrived before this instant is the next request whatever
  // else arrives now (a later arrival sorts after it): it starts at once.
  // Otherwise choose one delta later, once every request arriving at this
  // instant has been pushed. A zero-time head, or requests stalled at a full
  // queue (admitted in arrival-instant order), take the delta too.
  const Request& head = queue_.front();
  if (stalled_.empty() && head.service != sc_core::SC_ZERO_TIME && head.arrival < sim_now()) {
    start_next();
    return;
  }
  selecting_ = true;
  kick_.kick();
}

// Puts the queue's head in service.
void ServiceQueue::start_next() {
  current_ = queue_.front();  // the least (arrival, order, seq): see insert_sorted
  queue_.pop_front();
  busy_ = true;
  if (meter_) power_token_ = meter_->begin(current_.pj, current_.service);
  admit_stalled();
  update_depth();
  if (current_.service != sc_core::SC_ZERO_TIME) calendar_.call_in(served_, current_.service);
}

// Picks the next request, one delta after a kick. A zero-time service ends
// here, one delta after it began. A kick that comes while a request is in
// service (a push of the picking delta that ran before serve()) is stale.
void ServiceQueue::serve() {
  if (busy_) {
    if (current_.service == sc_core::SC_ZERO_TIME) end_service();
    return;
  }
  selecting_ = false;
  if (!queue_.empty()) {
    start_next();
    if (current_.service == sc_core::SC_ZERO_TIME) kick_.kick();
    return;
  }
  update_depth();
}

void ServiceQueue::admit_stalled() {
  while (!stalled_.empty() && queue_.size() < capacity_) {
    Request r = stalled_.front();  // the oldest attempt, then the best key
    stalled_.pop_front();
    r.arrival = sim_now();
    r.from_stall = true;
    insert_sorted(queue_, r);
  }
}

void ServiceQueue::update_depth() {
  depth_.set(depth());
  if (track_) track_->sample(std::llround(to_ns(sim_now()) * 1000), depth());
}

void DepthTrack::sample(int64_t ps, unsigned depth) {
  // Several changes at one instant (deltas) keep the last: the settled value.
  if (!samples.empty() && samples.back().first == ps) samples.pop_back();
  if (!samples.empty() && samples.back().second == depth) return;
  samples.emplace_back(ps, depth);
}

std::vector<std::pair<int64_t, double>> DepthTrack::busy_share(int64_t end_ps,
                                                               int64_t bin_ps) const {
  std::vector<std::pair<int64_t, double>> out;
  if (end_ps <= 0 || bin_ps <= 0) return out;
  std::vector<int64_t> busy(static_cast<size_t>((end_ps + bin_ps - 1) / bin_ps), 0);
  for (size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].second == 0) continue;
    int64_t from = samples[i].first;
    const int64_t to = std::min(end_ps, i + 1 < samples.size() ? samples[i + 1].first : end_ps);
    while (from < to) {
      const int64_t bin = from / bin_ps, bin_end = std::min(to, (bin + 1) * bin_ps);
      busy[static_cast<size_t>(bin)] += bin_end - from;
      from = bin_end;
    }
  }
  for (size_t b = 0; b < busy.size(); ++b) {
    const auto start = static_cast<int64_t>(b) * bin_ps;
    const int64_t width = std::min(bin_ps, end_ps - start);
    const double share = static_cast<double>(busy[b]) / static_cast<double>(width);
    if (out.empty() || out.back().second != share) out.emplace_back(start, share);
  }
  return out;
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
