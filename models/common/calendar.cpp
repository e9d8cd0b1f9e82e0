#include "models/common/calendar.h"

#include <algorithm>
#include <functional>
#include <systemc>

#include "models/common/free_list.h"
#include "models/common/sim_time.h"

namespace kb {

Calendar& Calendar::get() {
  static auto* calendar = new Calendar;  // never destroyed (see the header)
  return *calendar;
}

Calendar::Calendar() {
  sc_core::sc_spawn_options opts;
  opts.spawn_method();
  opts.set_sensitivity(&wake_);
  opts.set_sensitivity(&delta_wake_);
  opts.dont_initialize();
  sc_core::sc_spawn([this] { fire(); }, sc_core::sc_gen_unique_name("kb_calendar"), &opts);
}

void Calendar::notify_in(sc_core::sc_event& ev, const sc_core::sc_time& delay) {
  add({&ev, nullptr}, delay);
}

void Calendar::call_in(Timer& timer, const sc_core::sc_time& delay) {
  add({nullptr, &timer}, delay);
}

uint64_t Calendar::next_delta() {
  // A call made outside the kernel's phases (between sc_start() calls) is due
  // in the first delta of the next run, whether or not the kernel counts one
  // before it.
  const uint64_t delta = sc_core::sc_delta_count();
  return sim_context().get_status() == sc_core::SC_RUNNING ? delta + 1 : delta;
}

void Calendar::call_next_delta(Timer& timer, uint64_t due) {
  // The first call of this delta wakes the calendar in the next one.
  if (next_delta_.empty() || next_delta_.back().due != due)
    delta_wake_.notify(sc_core::SC_ZERO_TIME);
  next_delta_.push_back({&timer, due});
}

// The timers called for this delta: those made in an earlier one (the kernel
// counts a delta per evaluation phase). Calls made here, or earlier in this
// delta by processes that ran before the calendar's, wait for the next one.
void Calendar::run_next_delta() {
  const uint64_t delta = sc_core::sc_delta_count();
  auto end = next_delta_.begin();
  while (end != next_delta_.end() && end->due <= delta) ++end;
  if (end == next_delta_.begin()) return;
  running_delta_.assign(next_delta_.begin(), end);
  next_delta_.erase(next_delta_.begin(), end);
  for (const DeltaCall& c : running_delta_) c.timer->on_time();
}

void Calendar::add(Entry e, const sc_core::sc_time& delay) {
  const uint64_t now = sim_now().value();
  const uint64_t at = now + delay.value();
  if (at != last_at_) {
    if (const uint32_t* found = due_.find(at)) {
      last_list_ = *found;
    } else {
      if (free_lists_.empty()) {
        last_list_ = static_cast<uint32_t>(lists_.size());
        lists_.emplace_back();
      } else {
        last_list_ = free_lists_.back();
        free_lists_.pop_back();
      }
      due_.insert(at, last_list_);
      instants_.push_back(at);
      std::push_heap(instants_.begin(), instants_.end(), std::greater<>{});
    }
    last_at_ = at;
  }
  lists_[last_list_].push_back(e);
  if (at < armed_) {  // the kernel replaces a later pending notification
    armed_ = at;
    // While firing, fire() arms the kernel once at the end: a notification
    // per timer's call would each leave a cancelled entry in its heap.
    if (!firing_) wake_.notify(delay);
  }
}

void Calendar::wait(const sc_core::sc_time& delay) {
  if (delay == sc_core::SC_ZERO_TIME) {
    sc_core::wait(sc_core::SC_ZERO_TIME);
    return;
  }
  // An event of the thread's own for this wait. A thread killed while it
  // waits never gives it back; the calendar's entry then wakes nobody.
  sc_core::sc_event* ev = FreeList<sc_core::sc_event>::take();
  notify_in(*ev, delay);
  sc_core::wait(*ev);
  FreeList<sc_core::sc_event>::give(ev);
}

void Calendar::fire() {
  if (!next_delta_.empty()) run_next_delta();
  const uint64_t now = sim_now().value();
  // Woken for the next-delta calls only: the pending wake-up stays armed.
  if (instants_.empty() || instants_.front() > now) return;
  armed_ = UINT64_MAX;
  struct Firing {  // reset however fire() leaves (a timer may raise a fault)
    bool& flag;
    explicit Firing(bool& f) : flag(f) { flag = true; }
    ~Firing() { flag = false; }
    Firing(const Firing&) = delete;
    Firing& operator=(const Firing&) = delete;
  } firing(firing_);
  while (!instants_.empty() && instants_.front() <= now) {
    std::pop_heap(instants_.begin(), instants_.end(), std::greater<>{});
    const uint64_t at = instants_.back();
    instants_.pop_back();
    const uint32_t list = due_.take(at);
    if (at == last_at_) last_at_ = InstantIndex::kNone;
    // A timer schedules only later instants (delay > 0), never into this
    // list, which is out of the index; but it may add lists, so the list is
    // indexed afresh for each entry.
    // NOLINTNEXTLINE(modernize-loop-convert): lists_ may reallocate meanwhile
    for (size_t i = 0; i < lists_[list].size(); ++i) {
      const Entry e = lists_[list][i];
      if (e.event)
        e.event->notify();
      else
        e.timer->on_time();
    }
    lists_[list].clear();
    free_lists_.push_back(list);
  }
  // The one notification the timers' calls deferred (made here, not by add()).
  if (!instants_.empty()) {
    armed_ = instants_.front();
    wake_.notify(sc_core::sc_time::from_value(armed_ - now));
  }
}

}  // namespace kb
