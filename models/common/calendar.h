// One list of timed wake-ups for the whole simulation.
//
// The SystemC kernel keeps every timed notification in a binary heap whose
// comparisons call through a function pointer into the notification objects,
// scattered over the heap; with thousands of queues and requests in service at
// once, keeping that heap ordered was a fifth of the simulator's work. The
// calendar keeps the same wake-ups grouped by instant (many fall due at the
// same one), with a heap of plain instants, and puts a single notification,
// its earliest, in the kernel's.
//
// notify_in(ev, d) notifies `ev` immediately in the evaluation phase of the
// first delta cycle at now + d: the delta in which the kernel's own timed
// notification `ev.notify(d)` would have woken `ev`'s waiters. A process
// sensitive to `ev` therefore runs in the same delta cycle either way; only
// its place among the processes of that delta can differ, and the models
// order same-instant work by keys, not by the kernel's run order.
//
// call_in(timer, d) runs `timer` itself at that point instead: from the
// calendar's own process, in the same evaluation phase, with no event, no
// process to schedule and no coroutine switch. A service queue's arrivals and
// ends of service are such timers. What a timer does must not depend on
// running before or after the other processes of its delta, the same rule as
// for the processes an event wakes.
//
// call_next_delta(timer) runs `timer` in the next delta cycle: the
// evaluation phase in which a process woken by `ev.notify(SC_ZERO_TIME)`
// would run, one kernel notification for every such call of a delta instead
// of an event and a process each. A service queue picks its next request so.
#pragma once

#include <cstdint>
#include <vector>

#include <sysc/kernel/sc_event.h>
#include <sysc/kernel/sc_time.h>

#include "models/common/instant_index.h"

namespace kb {

class Calendar {
 public:
  // The simulation's calendar, created at its first use (at elaboration by
  // the first ServiceQueue; its process is a child of the module then being
  // built). Never destroyed: one simulation per process.
  static Calendar& get();

  // Work the calendar runs at an instant (call_in). Its owner outlives every
  // pending call.
  class Timer {
   public:
    virtual void on_time() = 0;

   protected:
    ~Timer() = default;
  };

  // Notifies `ev` at now + `delay` (delay > 0), as above. Entries due at the
  // same instant fire in the order they were made.
  void notify_in(sc_core::sc_event& ev, const sc_core::sc_time& delay);
  // Runs timer.on_time() at now + `delay` (delay > 0), where notify_in would
  // have notified. One instant's entries are taken in the order they were
  // made: a timer runs there and then, an event's waiters after the
  // calendar's process has taken them all.
  void call_in(Timer& timer, const sc_core::sc_time& delay);

  // Runs timer.on_time() in the next delta cycle, as above. The calls made
  // in one delta run in the order they were made.
  void call_next_delta(Timer& timer) { call_next_delta(timer, next_delta()); }
  // The kernel's delta count from which a call_next_delta made now is due,
  // and the call with it (for a caller that already asked).
  static uint64_t next_delta();
  void call_next_delta(Timer& timer, uint64_t due);

  // sc_core::wait(delay) for the calling SC_THREAD, woken through the
  // calendar (a zero delay waits one delta, as the kernel's would).
  void wait(const sc_core::sc_time& delay);

  Calendar(const Calendar&) = delete;
  Calendar& operator=(const Calendar&) = delete;

 private:
  Calendar();
  void fire();
  // One wake-up: an event to notify, or else a timer to run.
  struct Entry {
    sc_core::sc_event* event;
    Timer* timer;
  };
  void add(Entry e, const sc_core::sc_time& delay);
  void run_next_delta();

  // The pending wake-ups grouped by instant: many are due at the same one
  // (requests served back to back, hops of equal latency), so the heap holds
  // each instant once and an instant's events are notified in the order they
  // were added. An instant's list is one of lists_, found through due_.
  InstantIndex due_;                       // sc_time value -> index in lists_
  std::vector<std::vector<Entry>> lists_;  // reused: a wake-up allocates nothing
  std::vector<uint32_t> free_lists_;       // indices of emptied lists
  std::vector<uint64_t> instants_;         // min-heap of the keys of due_
  // The instant of the last add() and its list: the next add is often due at
  // the same one.
  uint64_t last_at_ = InstantIndex::kNone;
  uint32_t last_list_ = 0;
  uint64_t armed_ = UINT64_MAX;  // the instant wake_ is notified for (none: max)
  bool firing_ = false;          // in fire(): its timers' calls arm nothing
  sc_core::sc_event wake_;
  // call_next_delta's timers, each with the kernel's delta count from which
  // it is due (they are appended in that order), and those being run.
  struct DeltaCall {
    Timer* timer;
    uint64_t due;
  };
  std::vector<DeltaCall> next_delta_, running_delta_;
  sc_core::sc_event delta_wake_;
};

// What an SC_METHOD statically sensitive to one event that is only ever
// notified with notify(SC_ZERO_TIME) does, without the process and the event:
// kick() runs the owner's member `Fn` in the next delta, once however many
// kicks that delta gets (as the notifications of one event wake its process
// once).
template <class Owner, void (Owner::*Fn)()>
class DeltaKick final : Calendar::Timer {
 public:
  explicit DeltaKick(Owner* owner) : owner_(owner), calendar_(Calendar::get()) {}
  void kick() {
    const uint64_t due = Calendar::next_delta();
    if (due == kicked_for_) return;
    kicked_for_ = due;
    calendar_.call_next_delta(*this, due);
  }

 private:
  void on_time() override { (owner_->*Fn)(); }
  Owner* owner_;
  Calendar& calendar_;
  uint64_t kicked_for_ = UINT64_MAX;  // the delta the last kick runs `Fn` in
};

}  // namespace kb
