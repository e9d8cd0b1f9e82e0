// Loosely-timed delay annotation on the fabric's blocking transport.
//
// A pure latency (a router hop, a link's flight time, an HBM or TCM access
// after its queue has served the request) is added to the b_transport `delay`
// instead of being waited where it occurs. The thread carrying the payload
// waits the accumulated delay only when something time-dependent comes next:
// before a target acts on a delivered message and when b_transport returns to
// the initiator. A request for a service queue is handed over with the delay
// still pending (ServiceQueue::push_after): the queue takes it in when the
// delay has passed, and the thread suspends once, for its completion.
//
// Timing is exactly what waiting at every hop gave: nothing observable happens
// between consecutive pure latencies, so one wait of their sum ends at the same
// picosecond, in the same (timed) phase, as the chain of waits did. What it
// saves is the kernel: a 1 KiB HBM read crossed five or six such waits, each a
// coroutine switch.
//
// In data mode a target copies the payload when its queue has served the
// request, before the annotated access latency has elapsed: a write becomes
// visible, and a read samples memory, that latency earlier than its
// initiator's completion. Kernels order conflicting accesses by completion
// (hazards, doorbells), so only a racy program could tell.
#pragma once

#include <sysc/kernel/sc_time.h>

#include "models/common/calendar.h"

namespace kb {

// Waits out `delay` (if any) and clears it: the caller is now at the time the
// annotation stood for. SC_THREAD only.
inline void sync_delay(sc_core::sc_time& delay) {
  if (delay != sc_core::SC_ZERO_TIME) {
    Calendar::get().wait(delay);
    delay = sc_core::SC_ZERO_TIME;
  }
}

}  // namespace kb
