#include "models/common/service_queue.h"

namespace kb {

ServiceQueue::ServiceQueue(const sc_core::sc_module_name& name, unsigned capacity)
    : sc_core::sc_module(name), capacity_(capacity) {
  SC_HAS_PROCESS(ServiceQueue);
  SC_METHOD(serve);
  sensitive << kick_;
  dont_initialize();
}

void ServiceQueue::push(const sc_core::sc_time& service, uint64_t bytes, Completion* done) {
  while (capacity_ > 0 && queue_.size() >= capacity_) sc_core::wait(slot_freed_);
  if (done) done->expect(1);
  queue_.push_back({service, bytes, done});
  update_depth();
  if (!busy_) kick_.notify(sc_core::SC_ZERO_TIME);
}

void ServiceQueue::serve() {
  if (busy_) {  // the current request's service time has elapsed
    busy_ = false;
    ++stats_.requests;
    stats_.bytes += current_.bytes;
    stats_.busy_time += current_.service;
    if (current_.done) current_.done->done();
  }
  if (!queue_.empty()) {
    current_ = queue_.front();
    queue_.pop_front();
    busy_ = true;
    slot_freed_.notify();
    update_depth();
    next_trigger(current_.service);
    return;
  }
  update_depth();
  next_trigger(kick_);
}

void ServiceQueue::update_depth() {
  depth_ = depth();
  if (depth_ > stats_.max_depth) stats_.max_depth = depth_;
}

}  // namespace kb
