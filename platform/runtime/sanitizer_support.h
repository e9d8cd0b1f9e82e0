// AddressSanitizer and SystemC's coroutines: one repair the code that catches
// a simulation exception must make when the build carries ASan (KB_SANITIZE).
//
// SystemC 2.3.4 announces every coroutine switch to ASan
// (__sanitizer_start/finish_switch_fiber around each yield) except the last
// one of a thread that ends: sc_cor_pkg_qt::abort() switches silently. When
// an SC_THREAD dies from an exception (an SC_REPORT_ERROR, a TLM protocol
// violation, a simulation fault), ASan therefore still believes the main
// thread runs on the dead coroutine's stack, so when the kernel rethrows the
// error out of sc_start() it cannot clear the shadow of the frames that throw
// discards ("ASan is ignoring requested __asan_handle_no_return"). Their
// redzones stay poisoned, and the next calls that reuse those stack addresses
// (the platform's destructors, say) report false stack-buffer-overflows.
#pragma once

namespace kb {

// Call first thing in a handler that caught an exception thrown out of
// sc_start(), on the main stack. Tells ASan the main stack is current again
// and clears the stale shadow below the calling frame (dead stack: nothing
// lives below the handler). A no-op in builds without ASan.
void recover_stack_after_sc_exception();

}  // namespace kb
