// AddressSanitizer and SystemC's coroutines (builds with KB_SANITIZE; every
// function here is a no-op without ASan).
//
// SystemC 2.3.4 tells ASan about its coroutine switches
// (__sanitizer_start/finish_switch_fiber around each yield), with two gaps:
//  - a switch back to the main coroutine passes no stack (the main coroutine
//    has none of its own), so ASan's idea of the stack while the main stack
//    runs again is empty;
//  - the last switch of a thread that ends (sc_cor_pkg_qt::abort) is not
//    announced at all, so after an SC_THREAD dies from an exception ASan still
//    believes the dead coroutine's stack is current.
// Either way, an exception thrown on the main stack afterwards (the kernel
// rethrowing a process's error out of sc_start(), or any later throw) cannot
// have its discarded frames cleared from the shadow: ASan prints "ASan is
// ignoring requested __asan_handle_no_return" and those frames keep their
// redzones, so later calls that reuse the addresses (the platform's
// destructors, say) report false stack-buffer-overflows.
#pragma once

namespace kb {

// Called by the report handler (report_policy.cpp) just before it throws an
// SC_ERROR / SC_FATAL. In an SC_THREAD it announces the switch back to the
// main stack that the dying thread's abort will not make, so that both the
// throw in the thread and the kernel's rethrow out of sc_start() unwind
// cleanly (while a switch is announced, ASan takes the stack bounds from
// wherever the stack pointer is). On the main stack (an SC_METHOD, or outside
// the simulation) it makes the main stack current at once.
void prepare_stack_for_sc_exception();

// Call right after sc_start() returns, on the main stack: makes the main stack
// ASan's current stack again (completing a switch prepare_stack_for_sc_exception()
// announced, if any).
void resync_stack_after_sc_start();

// Call first thing in a handler that caught an exception thrown out of
// sc_start(): resync_stack_after_sc_start(), then clears the stale shadow
// below the calling frame (dead stack: nothing lives there).
void recover_stack_after_sc_exception();

}  // namespace kb
