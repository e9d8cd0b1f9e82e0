// Starts a module's SystemC thread when the module is first used, instead of
// at elaboration: a PE that never runs a stage keeps no coroutine stack.
//
// The thread is what an elaborated one would be: a child of `owner` named
// `name` (so its hierarchical name, which orders same-instant DMA
// submissions, is unchanged), first run where an elaborated thread asleep on
// its event would run: when the caller notifies that event for the next delta
// (kick.notify(SC_ZERO_TIME)), pass `next_delta` and the thread starts `body`
// one delta from now; when it notifies it at once, the thread runs `body` in
// this evaluation, as a woken one would. Called between sc_start() calls, the
// thread runs at the next start, in its first or second delta likewise. No
// static sensitivity is used, so a thread may still notify its own event.
#pragma once

#include <memory>
#include <systemc>
#include <utility>

#include "models/common/stack_color.h"
#include "models/common/thread_budget.h"

namespace kb {

// Spawns under `owner`, not under the running process, while in scope.
class SpawnUnder {
 public:
  explicit SpawnUnder(sc_core::sc_module& owner) : simc_(sc_core::sc_get_curr_simcontext()) {
    simc_->hierarchy_push(&owner);
  }
  ~SpawnUnder() { simc_->hierarchy_pop(); }
  SpawnUnder(const SpawnUnder&) = delete;
  SpawnUnder& operator=(const SpawnUnder&) = delete;

 private:
  sc_core::sc_simcontext* simc_;
};

template <typename Body>
void start_thread_on_first_use(sc_core::sc_module& owner, const char* name, bool next_delta,
                               Body body) {
  reserve_thread_stack(owner.name());
  SpawnUnder scope(owner);
  sc_core::sc_spawn_options opts;
  color_stack(opts);
  sc_core::sc_spawn(
      [next_delta, body = std::move(body)]() mutable {
        if (next_delta) sc_core::wait(sc_core::SC_ZERO_TIME);
        body();
      },
      name, &opts);
}

// An event the first-use process waits on, made with it: named `name` under
// `owner`, as an event made while elaborating the owner would be.
inline std::unique_ptr<sc_core::sc_event> make_event_on_first_use(sc_core::sc_module& owner,
                                                                  const char* name) {
  const SpawnUnder scope(owner);
  return std::make_unique<sc_core::sc_event>(name);
}

// The same for an SC_METHOD sensitive to `ev`: not run until `ev` is
// notified, or, with `run_now`, run in this evaluation as well (where a thread
// started by start_thread_on_first_use(..., false, ...) runs its body).
template <typename Body>
void start_method_on_first_use(sc_core::sc_module& owner, const char* name, sc_core::sc_event& ev,
                               Body body, bool run_now = false) {
  SpawnUnder scope(owner);
  sc_core::sc_spawn_options opts;
  opts.spawn_method();
  opts.set_sensitivity(&ev);
  if (!run_now) opts.dont_initialize();
  sc_core::sc_spawn(std::move(body), name, &opts);
}

}  // namespace kb
