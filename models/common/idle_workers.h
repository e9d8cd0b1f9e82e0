// The idle threads of a worker pool, each asleep on its own event, so that
// new work wakes exactly one of them. (Waking a shared event wakes every idle
// worker; all but one then find nothing and sleep again: with 64 DMA workers
// per channel that herd was a fifth of the simulation's wall time.)
#pragma once

#include <deque>
#include <systemc>
#include <vector>

namespace kb {

class IdleWorkers {
 public:
  // The event a new worker sleeps on, owned here (not on the worker's
  // coroutine stack, which SystemC frees without unwinding at exit).
  sc_core::sc_event& new_worker_event() {
    events_.emplace_back();
    return events_.back();
  }
  // Called by a worker thread with nothing to do: sleeps until woken.
  void wait_for_work(sc_core::sc_event& mine) {
    idle_.push_back(&mine);
    sc_core::wait(mine);
  }
  // Wakes one sleeping worker, if any (it may find the work already taken by
  // a busy worker that came back first; it then sleeps again).
  void wake_one() {
    if (idle_.empty()) return;
    sc_core::sc_event* e = idle_.back();
    idle_.pop_back();
    e->notify();
  }

 private:
  std::vector<sc_core::sc_event*> idle_;
  std::deque<sc_core::sc_event> events_;  // stable addresses
};

}  // namespace kb
