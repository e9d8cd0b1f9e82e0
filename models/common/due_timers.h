// Calendar timers whose delay may be zero.
//
// Calendar::call_in needs a delay: a timer due now must still run where a
// thread woken now would, later in this delta's evaluation and not inside the
// caller (which may be another module's timer in the middle of its own work).
// A module's DueTimers runs such timers from one SC_METHOD of the module,
// notified at once, in the order they were given. The method starts at the
// first timer due now, so a module that never has one keeps no process and
// no event (a 64-SIP system has tens of thousands of engines that never do).
#pragma once

#include <memory>
#include <systemc>
#include <vector>

#include "models/common/calendar.h"
#include "models/common/first_use_thread.h"

namespace kb {

class DueTimers {
 public:
  // `method` names the module's method (a child of `owner`); `event` its
  // event. Both are string literals: they are kept, not copied.
  DueTimers(sc_core::sc_module& owner, const char* method, const char* event)
      : owner_(owner), method_(method), event_(event) {}
  // The method holds `this`.
  DueTimers(const DueTimers&) = delete;
  DueTimers& operator=(const DueTimers&) = delete;
  DueTimers(DueTimers&&) = delete;
  DueTimers& operator=(DueTimers&&) = delete;
  ~DueTimers() = default;

  // Runs timer.on_time() `delay` from now: the calendar's when delay > 0,
  // else this delta's method.
  void call_in(Calendar::Timer& timer, const sc_core::sc_time& delay) {
    if (delay != sc_core::SC_ZERO_TIME) {
      Calendar::get().call_in(timer, delay);
      return;
    }
    if (!due_now_) {
      due_now_ = make_event_on_first_use(owner_, event_);
      start_method_on_first_use(owner_, method_, *due_now_, [this] { run_due(); });
    }
    due_.push_back(&timer);
    if (!running_) due_now_->notify();
  }

 private:
  void run_due() {
    // A timer run here may give another one due now: a method is not woken by
    // its own immediate notification (the kernel warns), so it loops instead.
    running_ = true;
    while (!due_.empty()) {
      std::vector<Calendar::Timer*> now;
      now.swap(due_);
      for (Calendar::Timer* t : now) t->on_time();
    }
    running_ = false;
  }

  sc_core::sc_module& owner_;
  const char* method_;
  const char* event_;
  std::vector<Calendar::Timer*> due_;
  std::unique_ptr<sc_core::sc_event> due_now_;  // made with the method
  bool running_ = false;                        // in run_due()
};

}  // namespace kb
