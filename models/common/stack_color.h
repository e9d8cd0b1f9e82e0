// Spawn options whose coroutine stack size differs from thread to thread by a
// few cache lines ("stack colouring").
//
// A SystemC thread's stack is one allocation of the same size for every
// thread, so the top of every stack, where a suspended thread's live frames
// are, falls at the same offset within its page. With thousands of threads
// resumed in turn (DMA burst workers, lane workers), those frames then compete
// for the same few cache sets while the rest of the cache sits idle. Giving
// consecutive threads stacks that differ by one cache line spreads their tops
// over a page. It changes nothing the simulation computes: only where each
// stack lies in memory.
#pragma once

#include <sysc/kernel/sc_spawn_options.h>

namespace kb {

// Sets the stack size of the next spawned thread: the kernel's default (or
// `base_bytes` when non-zero) plus the next of 64 cache-line offsets.
void color_stack(sc_core::sc_spawn_options& opts, int base_bytes = 0);

}  // namespace kb
