// One list of timed wake-ups for the whole simulation.
//
// The SystemC kernel keeps every timed notification in a binary heap whose
// comparisons call through a function pointer into the notification objects,
// scattered over the heap; with thousands of queues and requests in service at
// once, keeping that heap ordered was a fifth of the simulator's work. The
// calendar keeps the same wake-ups in its own heap of plain (time, sequence)
// entries and puts a single notification, its earliest, in the kernel's.
//
// notify_in(ev, d) notifies `ev` immediately in the evaluation phase of the
// first delta cycle at now + d: the delta in which the kernel's own timed
// notification `ev.notify(d)` would have woken `ev`'s waiters. A process
// sensitive to `ev` therefore runs in the same delta cycle either way; only
// its place among the processes of that delta can differ, and the models
// order same-instant work by keys, not by the kernel's run order.
#pragma once

#include <cstdint>
#include <vector>

#include <sysc/kernel/sc_event.h>
#include <sysc/kernel/sc_time.h>

namespace kb {

class Calendar {
 public:
  // The simulation's calendar, created at its first use (at elaboration by
  // the first ServiceQueue; its process is a child of the module then being
  // built). Never destroyed: one simulation per process.
  static Calendar& get();

  // Notifies `ev` at now + `delay` (delay > 0), as above. Entries due at the
  // same instant fire in the order they were made.
  void notify_in(sc_core::sc_event& ev, const sc_core::sc_time& delay);

  // sc_core::wait(delay) for the calling SC_THREAD, woken through the
  // calendar (a zero delay waits one delta, as the kernel's would).
  void wait(const sc_core::sc_time& delay);

  Calendar(const Calendar&) = delete;
  Calendar& operator=(const Calendar&) = delete;

 private:
  Calendar();
  void fire();

  struct Entry {
    uint64_t at;   // sc_time value
    uint64_t seq;  // order of the notify_in calls
    sc_core::sc_event* ev;
  };
  struct LaterFirst {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.at != b.at ? a.at > b.at : a.seq > b.seq;
    }
  };
  std::vector<Entry> heap_;
  uint64_t seq_ = 0;
  uint64_t armed_ = UINT64_MAX;  // the instant wake_ is notified for (none: max)
  sc_core::sc_event wake_;
};

}  // namespace kb
